"""Issue 20, "Tests": an arena of 20 players over five (simulated) minutes with real tables,
run by the embedded Celery worker and beat (tests/tournaments/inner/test_arena_in_process.py,
in a subprocess: the worker and beat threads share a test database FILE with the test)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_issue20_an_arena_with_the_embedded_worker_and_beat():
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "PYTEST_ADDOPTS", "CELERY_EMBEDDED", "PYTEST_CURRENT_TEST"}
    }
    env["DURAK_ARENA_INNER"] = "1"
    command = [sys.executable, "-m", "pytest", "tests/tournaments/inner/test_arena_in_process.py", "-q", "-rA", "-s"]
    command += ["-p", "no:cacheprovider", "-o", "addopts="]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        pytest.fail(f"the arena failed:\n{output[-8000:]}", pytrace=False)
    assert re.search(r"\b2 passed", output), output[-3000:]
