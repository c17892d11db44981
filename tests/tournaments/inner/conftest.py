"""The inner (subprocess) event test: run by tests/tournaments/test_embedded_event.py,
never collected in the ordinary run (it needs a test database FILE, which the
embedded worker and beat threads share with the test)."""

import os

import pytest

collect_ignore = [] if os.environ.get("DURAK_TOURNAMENT_INNER") else ["test_event_in_process.py"]
# The arena's run (tests/tournaments/test_arena_embedded.py) has a switch of its own.
if os.environ.get("DURAK_ARENA_INNER") != "1":
    collect_ignore.append("test_arena_in_process.py")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    from django.conf import settings

    default = settings.DATABASES["default"]
    if default["ENGINE"].endswith("sqlite3"):
        default.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("db") / "test-db.sqlite3")


@pytest.fixture(scope="session", autouse=True)
def _no_stray_sessions_at_teardown(django_db_setup, django_db_blocker):
    """The worker and beat processes hold connections to the PostgreSQL test
    database: end them before pytest-django drops it."""
    from django.db import connection

    yield
    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
