"""Run tests/scaleout/inner in a subprocess with its own settings environment."""

from __future__ import annotations

import os
import re
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
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    output = result.stdout + result.stderr
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)", output)}
    if result.returncode != 0:
        pytest.fail(f"inner tests failed (exit {result.returncode}):\n{output}", pytrace=False)
    return counts
