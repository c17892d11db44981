"""Fixtures of the inner (subprocess) scale-out tests."""

import os

import pytest
from django.db import connection

# The Redis restart test restarts its Redis: only the private one that
# tests/scaleout/test_redis_restart.py starts for it, never the machine's.
collect_ignore = [] if os.environ.get("DURAK_PRIVATE_REDIS_PORT") else ["test_redis_restart.py"]
# Whole scenarios with processes of their own, each run alone by its outer test
# (tests/scaleout/test_club_evening_processes.py, test_live_play_first_processes.py,
# test_arena_processes.py).
if os.environ.get("DURAK_INNER_SCENARIO") != "1":
    collect_ignore += ["test_club_evening_processes.py", "test_live_play_first_processes.py", "test_arena_processes.py"]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """On SQLite, a test database FILE: real concurrent writers (threads, a worker
    thread, a second connection) cannot share the in-memory test database.
    PostgreSQL needs nothing: its test database is test_<DATABASE_URL's name>."""
    from django.conf import settings

    default = settings.DATABASES["default"]
    if default["ENGINE"].endswith("sqlite3"):
        default.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("db") / "test-db.sqlite3")


@pytest.fixture(scope="session", autouse=True)
def _no_stray_sessions_at_teardown(django_db_setup, django_db_blocker):
    """Worker threads and processes of these tests open their own connections; on
    PostgreSQL end any still open before pytest-django drops the test database."""
    yield
    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
