"""Redis restarts mid-game (issue 7, item 9), against a PRIVATE redis-server.

Restarting the machine's Redis would break other people's tests, so this test
starts its own redis-server on a free port and hands it to the inner test
(tests/scaleout/inner/test_redis_restart.py), which restarts it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.conftest import in_ci
from tests.scaleout.runner import run_inner


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def private_redis():
    binary = shutil.which("redis-server")
    if not binary:
        if in_ci():
            pytest.fail("redis-server is not installed; CI=true requires it", pytrace=False)
        pytest.skip("redis-server is not installed")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            assert process.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.1)
    try:
        yield port
    finally:
        if process.poll() is None:  # the inner test shuts this one down and starts its own
            process.terminate()
        process.wait(10)


def test_redis_restart_mid_game(postgres_url, private_redis):
    pg = urlsplit(postgres_url)
    database_url = urlunsplit((pg.scheme, pg.netloc, f"/durak_restart_{os.getpid()}", "", ""))
    counts = run_inner(
        {
            "DATABASE_URL": database_url,
            "REDIS_URL": f"redis://127.0.0.1:{private_redis}/0",
            "DURAK_PRIVATE_REDIS_PORT": str(private_redis),
            "BOT_PAUSE_SECONDS": "0.05,0.15",
        },
        "test_redis_restart.py",
        timeout=600,
    )
    assert counts.get("passed", 0) == 1, counts
