import pytest


@pytest.fixture(autouse=True)
def fresh_rating_cache():
    """Names show ratings through a short cache; every test starts without it."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
