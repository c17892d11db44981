"""Pages a new player meets: found by trying the site by hand in a browser."""

import pytest

pytestmark = pytest.mark.django_db


def test_a_player_who_is_no_director_gets_the_sites_refusal_page(client, django_user_model):
    """It was a bare line of text with no page around it."""
    client.force_login(django_user_model.objects.create_user(username="p1"))
    response = client.get("/tournaments/direct/")
    assert response.status_code == 403
    text = response.content.decode()
    assert "Доступ закрыт" in text
    assert "Это может сделать только судья турнира." in text
    assert "Вернуться в лобби" in text and '<header class="topbar">' in text


def test_the_refusal_page_in_english(client, django_user_model):
    client.force_login(django_user_model.objects.create_user(username="p1"))
    text = client.get("/tournaments/direct/", headers={"accept-language": "en"}).content.decode()
    assert "Access denied" in text and "Only a tournament director may do this." in text


def test_the_top_bar_leads_to_the_tournaments(client):
    """Tournaments were reachable only by typing their address."""
    text = client.get("/").content.decode()
    assert '<a class="nav-tournaments" href="/tournaments/">Турниры</a>' in text


def test_inviting_a_partner_who_does_not_exist_says_so(client, django_user_model):
    """The answer was "choose another player as your partner", which told a typo nothing."""
    client.force_login(django_user_model.objects.create_user(username="p1"))
    page = client.post("/tournaments/pairs/", {"partner": "nobody"}, follow=True).content.decode()
    assert "Такого игрока нет." in page


def test_a_partners_name_is_found_in_any_case(client, django_user_model):
    client.force_login(django_user_model.objects.create_user(username="p1"))
    django_user_model.objects.create_user(username="Masha")
    page = client.post("/tournaments/pairs/", {"partner": "masha"}, follow=True).content.decode()
    assert "Приглашение отправлено." in page
