"""Run tests/scaleout/inner in a subprocess with its own settings environment."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INNER = "tests/scaleout/inner"


def run_inner(env_overrides: dict[str, str], *targets: str, timeout: float = 600) -> dict[str, int]:
    """Run the inner tests (all, or `targets` under inner/) and return pytest's counts.

    Fails the calling test with pytest's whole output when anything fails or errors.
    """
    import pytest

    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DATABASE_URL",
            "REDIS_URL",
            "PYTEST_ADDOPTS",
            "CELERY_EMBEDDED",
            "PYTEST_CURRENT_TEST",
        }
    }
    env.update(env_overrides)
    env["DURAK_INNER_TESTS"] = "1"
    paths = [f"{INNER}/{t}" for t in targets] or [INNER]
    command = [sys.executable, "-m", "pytest", *paths, "-q", "-rA", "-p", "no:cacheprovider", "-o", "addopts="]
    # A test still running a minute before the limit prints every thread's stack (where it
    # waits), so a hang is answered with its place, not only with the limit.
    command += ["-o", f"faulthandler_timeout={max(30, int(timeout) - 60)}"]
    # Its own process group: at the limit the inner pytest AND the worker and beat processes
    # it started are killed, so none is left behind to take a later run's messages.
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        pytest.fail(f"inner tests still running after {timeout:.0f} s, killed:\n{output}", pytrace=False)
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)", output)}
    if process.returncode != 0:
        pytest.fail(f"inner tests failed (exit {process.returncode}):\n{output}", pytrace=False)
    return counts


def run_scenario(postgres_url: str, redis_port: int, database: str, target: str, timeout: float = 900) -> None:
    """Run one whole inner scenario (`target` under inner/, a single test that starts worker
    and beat processes of its own) on a PostgreSQL database named `database`_<pid> of
    `postgres_url`'s server and the private redis-server on `redis_port`; it must pass."""
    from urllib.parse import urlsplit, urlunsplit

    pg = urlsplit(postgres_url)
    counts = run_inner(
        {
            "DATABASE_URL": urlunsplit((pg.scheme, pg.netloc, f"/{database}_{os.getpid()}", "", "")),
            "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
            "DURAK_INNER_SCENARIO": "1",
        },
        target,
        timeout=timeout,
    )
    assert counts.get("passed", 0) == 1 and not counts.get("failed"), counts
