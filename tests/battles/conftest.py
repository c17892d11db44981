import pytest


@pytest.fixture(autouse=True)
def site_language():
    """Each test starts in the site's default language (Russian)."""
    from django.conf import settings
    from django.utils import translation

    with translation.override(settings.LANGUAGE_CODE):
        yield
