"""The inner (subprocess) test of reviews beside live play: run by
tests/reviews/test_live_play_first.py, never collected in the ordinary run (it
needs a test database FILE, which the embedded worker threads share with it)."""

import os

import pytest

collect_ignore = [] if os.environ.get("DURAK_REVIEWS_INNER") else ["test_bots_beside_reviews.py"]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    from django.conf import settings

    default = settings.DATABASES["default"]
    if default["ENGINE"].endswith("sqlite3"):
        default.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("db") / "test-db.sqlite3")


@pytest.fixture(autouse=True)
def small_review_budget(settings):
    """Here the site's own review budget (tests/reviews/conftest.py makes it small)."""
    from reviews import analysis, services

    settings.REVIEW_DEALS = analysis.DEFAULT_DEALS
    settings.REVIEW_PLAYOUTS = analysis.DEFAULT_PLAYOUTS
    settings.REVIEW_CHUNK_SECONDS = services.DEFAULT_CHUNK_SECONDS
