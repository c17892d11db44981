"""Issue 16, "What was seen" 2 (live play first): in the embedded mode, bot moves
keep their pace while 20 reviews are queued: tests/reviews/inner/, in a subprocess
(Django reads its settings once per process; the worker threads need a test
database file)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_bots_keep_their_pace_beside_20_reviews_in_the_embedded_mode():
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "PYTEST_ADDOPTS", "CELERY_EMBEDDED", "PYTEST_CURRENT_TEST"}
    }
    env["DURAK_REVIEWS_INNER"] = "1"
    command = [sys.executable, "-m", "pytest", "tests/reviews/inner", "-q", "-rA", "-p", "no:cacheprovider"]
    result = subprocess.run(
        command + ["-o", "addopts="], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    output = result.stdout + result.stderr
    if result.returncode != 0:
        pytest.fail(f"the inner test failed:\n{output[-6000:]}", pytrace=False)
    assert re.search(r"1 passed", output), output[-3000:]
