"""Fixtures of the scale tests: a site of several processes on PostgreSQL and Redis."""

from __future__ import annotations

import pytest

from tests.scale.cluster import Cluster


@pytest.fixture
def cluster(postgres_url, redis_url, tmp_path):
    """A migrated database of this run's own, a Redis database number of its own; the
    test starts the processes it needs. Everything is stopped and dropped after it."""
    site = Cluster(postgres_url, redis_url, tmp_path)
    site.clear_redis()
    site.create_database()
    try:
        yield site
    finally:
        site.stop_all()
        site.drop_database()
        site.clear_redis()
