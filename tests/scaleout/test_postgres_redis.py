"""The same game flow against PostgreSQL and Redis (the production setup).

Django reads its settings once per process, so the tests in tests/scaleout/inner
run in a subprocess with DATABASE_URL (PostgreSQL; pytest-django creates and
drops a test database of its own name) and REDIS_URL (channels_redis layer and
Celery broker) set. Skips on a bare machine without them; fails under CI=true.
"""

from __future__ import annotations

import os
import random
from urllib.parse import urlsplit, urlunsplit

from tests.scaleout.runner import run_inner


def test_inner_suite_on_postgres_and_redis(postgres_url, redis_url):
    pg = urlsplit(postgres_url)
    # A database name of this run's own, so parallel runs never share a test database
    # (pytest-django creates test_<name>; the base database need not exist).
    database_url = urlunsplit((pg.scheme, pg.netloc, f"/durak_scaleout_{os.getpid()}", "", ""))
    # A Redis database of its own too (a stray message from another run would be harmless:
    # every task reads its work from the database and is idempotent).
    r = urlsplit(redis_url)
    redis_db_url = urlunsplit((r.scheme, r.netloc, f"/{random.randint(1, 15)}", "", ""))
    counts = run_inner(
        {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_db_url,
            "BOT_PAUSE_SECONDS": "0.05,0.15",
        },
        timeout=900,
    )
    assert counts.get("passed", 0) == 6 and not counts.get("skipped"), counts
