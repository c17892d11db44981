"""Issue 21: a `next` redirects only to a page of this site.

Every view that reads `next` checks it with `url_has_allowed_host_and_scheme` (and
that it is a path: a bare word like "x" would otherwise be taken for a URL name).
tests/trust/test_small_holes.py covers an event's register, check-in and
unregister; these cover the other views that read `next`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.tournaments.helpers import make_event

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("games", "ratings", "tournaments", "reviews", "durak_site")
BAD_NEXT = ["https://evil.example/", "x", "//evil.example/", "javascript:alert(1)"]
READS_NEXT = re.compile(r"""\.get\(\s*["']next["']""")


def test_issue21_every_module_that_reads_next_checks_its_host():
    readers = []
    for package in PRODUCT:
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if READS_NEXT.search(text):
                readers.append(path.relative_to(ROOT).as_posix())
                assert "url_has_allowed_host_and_scheme(" in text, path
    assert "tournaments/views.py" in readers and "games/accounts/views.py" in readers


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_NEXT)
def test_issue21_a_bye_request_ignores_a_next_elsewhere(client, bad):
    event = make_event()
    client.force_login(get_user_model().objects.create_user(username="olga"))
    response = client.post(f"/tournaments/{event.pk}/bye/", {"round": "2", "next": bad})
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{event.pk}/"


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_NEXT)
def test_issue21_sign_up_ignores_a_next_elsewhere(client, bad):
    form = client.get(reverse("games:signup"), {"next": bad})
    assert f'name="next" value="{bad}"' not in form.content.decode()  # (the language switcher's is its own)
    response = client.post(
        reverse("games:signup") + "?next=/tables/new/",
        {"username": "masha", "password1": "a-long-secret-42", "password2": "a-long-secret-42", "next": bad},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("games:home")


@pytest.mark.django_db
def test_issue21_sign_up_follows_a_next_on_this_site(client):
    response = client.post(
        reverse("games:signup"),
        {"username": "masha", "password1": "a-long-secret-42", "password2": "a-long-secret-42", "next": "/tables/new/"},
    )
    assert response["Location"] == "/tables/new/"


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_NEXT)
def test_issue21_log_in_ignores_a_next_elsewhere(client, django_user_model, bad):
    django_user_model.objects.create_user(username="petya", password="pw-secret-123")
    response = client.post(reverse("games:login"), {"username": "petya", "password": "pw-secret-123", "next": bad})
    assert response.status_code == 302
    assert "evil" not in response["Location"] and response["Location"].startswith("/")
