"""Issue 15, "Tests": the whole club evening on PostgreSQL + Redis with real worker and beat
processes (tests/scaleout/inner/test_club_evening_processes.py, in a subprocess: Django
reads its settings once per process). A redis-server of the test's own, so no other run's
worker takes this evening's messages. Skips on a bare machine without PostgreSQL or
redis-server; fails under CI=true."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from tests.scaleout.runner import run_inner


def test_issue15_club_evening_with_worker_and_beat_processes(postgres_url, private_redis_port):
    pg = urlsplit(postgres_url)
    counts = run_inner(
        {
            "DATABASE_URL": urlunsplit((pg.scheme, pg.netloc, f"/durak_evening_processes_{os.getpid()}", "", "")),
            "REDIS_URL": f"redis://127.0.0.1:{private_redis_port}/0",
            "DURAK_INNER_SCENARIO": "1",
        },
        "test_club_evening_processes.py",
        timeout=900,
    )
    assert counts.get("passed", 0) == 1 and not counts.get("failed"), counts
