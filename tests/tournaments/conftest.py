import pytest
from django.contrib.auth.models import Group


@pytest.fixture
def director(django_user_model):
    """A member of the "Tournament directors" group (made by migration 0002), not a superuser."""
    user = django_user_model.objects.create_user(username="director", is_staff=True)
    user.groups.add(Group.objects.get(name="Tournament directors"))
    return user


@pytest.fixture(autouse=True)
def site_language():
    """Each test starts in the site's default language (Russian), whatever a page
    requested in English by an earlier test left active in this thread."""
    from django.conf import settings
    from django.utils import translation

    with translation.override(settings.LANGUAGE_CODE):
        yield
