"""Issue 7, item 11: friendly 404 and 500 pages in both languages."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.utils import translation
from django.views.defaults import server_error


@pytest.mark.django_db  # the page has the site's header: who is signed in
@pytest.mark.parametrize(
    ("language", "title", "back"),
    [("ru", "Страница не найдена", "Вернуться в лобби"), ("en", "Page not found", "Back to the lobby")],
)
def test_a_missing_page_is_a_friendly_404(client, language, title, back):
    response = client.get("/no-such-page/", headers={"accept-language": language})
    assert response.status_code == 404
    page = response.content.decode()
    assert f'<html lang="{language}">' in page
    assert f"<h1>{title}</h1>" in page
    assert back in page


@pytest.mark.parametrize(
    ("language", "title"),
    [("ru", "Ошибка сервера"), ("en", "Server error")],
)
def test_the_500_page_needs_no_database(language, title):
    """No django_db mark: any query here would fail the test (the database may be what broke)."""
    request = RequestFactory().get("/")
    with translation.override(language):
        response = server_error(request)
    assert response.status_code == 500
    page = response.content.decode()
    assert f'<html lang="{language}">' in page
    assert f"<h1>{title}</h1>" in page
