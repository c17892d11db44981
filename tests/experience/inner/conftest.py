"""The inner tests' database: PostgreSQL from DATABASE_URL (the outer test sets it)."""

import pytest
from django.db import connection


@pytest.fixture(scope="session", autouse=True)
def _no_stray_sessions_at_teardown(django_db_setup, django_db_blocker):
    """Threads of these tests open their own connections: end any still open before
    pytest-django drops the test database."""
    yield
    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
