import pytest
from django.contrib.auth.models import Group
from django.utils import translation


@pytest.fixture
def director(django_user_model):
    """A member of the "Tournament directors" group (made by a tournaments migration)."""
    user = django_user_model.objects.create_user(username="director")
    user.groups.add(Group.objects.get(name="Tournament directors"))
    return user


@pytest.fixture(autouse=True)
def site_language():
    """Every test starts in the site's default language, Russian."""
    translation.activate("ru")
    yield
    translation.deactivate()
