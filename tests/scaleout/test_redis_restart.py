"""Redis restarts mid-game (issue 7, item 9), against a PRIVATE redis-server.

Restarting the machine's Redis would break other people's tests, so this test
starts its own redis-server on a free port and hands it to the inner test
(tests/scaleout/inner/test_redis_restart.py), which restarts it.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from tests.scaleout.runner import run_inner


def test_redis_restart_mid_game(postgres_url, private_redis_port):
    # The inner test shuts this redis-server down and starts its own on the same port.
    private_redis = private_redis_port
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
