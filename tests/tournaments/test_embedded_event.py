"""An event run by Celery alone (no task called by the test): tests/tournaments/inner/,
in a subprocess (Django reads its settings once per process): with the embedded
worker and beat on SQLite, and with real worker and beat processes on PostgreSQL
and Redis."""

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_inner(overrides: dict[str, str]) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "PYTEST_ADDOPTS", "CELERY_EMBEDDED", "PYTEST_CURRENT_TEST"}
    }
    env.update(overrides)
    env["DURAK_TOURNAMENT_INNER"] = "1"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests/tournaments/inner",
        "-q",
        "-rA",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
    ]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        pytest.fail(f"the inner event test failed:\n{output[-6000:]}", pytrace=False)
    assert re.search(r"1 passed", output), output[-3000:]


def test_embedded_worker_and_beat_run_an_event():
    run_inner({})


def test_worker_and_beat_processes_run_an_event_on_postgres_and_redis(postgres_url, redis_url):
    pg, r = urlsplit(postgres_url), urlsplit(redis_url)
    run_inner(
        {
            # Names of this run's own: parallel runs never share a database.
            "DATABASE_URL": urlunsplit((pg.scheme, pg.netloc, f"/durak_events_{os.getpid()}", "", "")),
            "REDIS_URL": urlunsplit((r.scheme, r.netloc, f"/{random.randint(1, 15)}", "", "")),
        }
    )


def test_the_club_evening_on_postgres_and_redis(postgres_url, redis_url):
    """tests/tournaments/test_club_evening.py again with the production database, channel layer,
    cache (the caps' counters) and Celery broker: its row locks, transactions and queries on
    PostgreSQL, not SQLite. The test drives the clock itself, so no worker or beat runs here; the
    event run by real worker and beat processes is the test above."""
    pg, r = urlsplit(postgres_url), urlsplit(redis_url)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "PYTEST_ADDOPTS", "CELERY_EMBEDDED", "PYTEST_CURRENT_TEST"}
    }
    env.update(
        {
            "DATABASE_URL": urlunsplit((pg.scheme, pg.netloc, f"/durak_evening_{os.getpid()}", "", "")),
            "REDIS_URL": urlunsplit((r.scheme, r.netloc, f"/{random.randint(1, 15)}", "", "")),
        }
    )
    command = [sys.executable, "-m", "pytest", "tests/tournaments/test_club_evening.py", "-q", "-rA"]
    command += ["-p", "no:cacheprovider", "-o", "addopts="]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        pytest.fail(f"the club evening failed on PostgreSQL and Redis:\n{output[-6000:]}", pytrace=False)
    assert re.search(r"\b1 passed", output), output[-3000:]
