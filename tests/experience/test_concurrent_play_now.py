"""Two people press "play now" at once on PostgreSQL (select_for_update for real).

The threads need a real server database, so the test in inner/ runs in a subprocess
whose DATABASE_URL points at the machine's PostgreSQL; its database name holds this
process's id, so parallel runs never meet.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]


def test_two_presses_at_once_land_at_one_table_on_postgres(postgres_url):
    parts = urlsplit(postgres_url)
    database_url = urlunsplit(parts._replace(path=f"/durak_play_now_{os.getpid()}"))
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST"}}
    env.update({"DATABASE_URL": database_url, "DURAK_INNER_TESTS": "1", "DEBUG": "true"})
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests/experience/inner",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
    ]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert re.search(r"\b1 passed\b", output), output
