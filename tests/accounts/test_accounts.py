"""Signing up, logging in and out, profiles, and playing as a guest."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.urls import reverse

from games import engine
from games.models import Game, Profile, Table
from games.services import tables as table_services
from tests.support.games import open_game, play_to_end

pytestmark = pytest.mark.django_db


def html(response) -> str:
    return response.content.decode()


def test_sign_up_creates_a_user_with_a_profile_and_logs_in(client):
    response = client.post(
        reverse("games:signup"),
        {
            "username": "masha",
            "password1": "a-long-secret-42",
            "password2": "a-long-secret-42",
        },
    )
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("games:home")
    user = get_user_model().objects.get(username="masha")
    assert Profile.objects.get(user=user).is_guest is False
    page = html(client.get("/"))
    assert reverse("games:profile", kwargs={"username": "masha"}) in page
    assert reverse("games:table-new") in page


def test_sign_up_refuses_bad_input_and_changes_nothing(client):
    response = client.post(
        reverse("games:signup"),
        {
            "username": "masha",
            "password1": "a-long-secret-42",
            "password2": "something-else-42",
        },
    )
    assert response.status_code == 200
    assert "errorlist" in html(response)
    assert not get_user_model().objects.filter(username="masha").exists()
    assert "_auth_user_id" not in client.session


def test_log_in_and_log_out(client, django_user_model):
    django_user_model.objects.create_user("petya", password="pw-secret-123")
    page = html(client.get(reverse("games:login")))
    assert 'name="username"' in page and 'name="password"' in page

    bad = client.post(reverse("games:login"), {"username": "petya", "password": "wrong"})
    assert bad.status_code == 200 and "_auth_user_id" not in client.session

    response = client.post(reverse("games:login"), {"username": "petya", "password": "pw-secret-123"})
    assert response.status_code == 302
    assert client.session["_auth_user_id"]

    assert client.get(reverse("games:logout")).status_code == 405  # logging out is a POST
    assert client.session.get("_auth_user_id")
    response = client.post(reverse("games:logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


def test_log_in_returns_to_next(client, django_user_model):
    django_user_model.objects.create_user("petya", password="pw-secret-123")
    response = client.post(
        reverse("games:login") + "?next=/tables/new/",
        {"username": "petya", "password": "pw-secret-123", "next": "/tables/new/"},
    )
    assert response.headers["Location"] == "/tables/new/"


def test_profile_lists_finished_games(client, players):
    users = players[:2]
    game = play_to_end(open_game(users), users)
    durak = game.result["durak"]
    loser, winner = (users[durak], users[1 - durak]) if durak is not None else users

    page = html(client.get(reverse("games:profile", kwargs={"username": loser.username})))
    assert reverse("games:game-record", kwargs={"game_id": game.pk}) in page
    assert ("дурак" if durak is not None else "ничья") in page
    assert "Подкидной" in page
    assert "Сыграно партий" in page

    page = html(client.get(reverse("games:profile", kwargs={"username": winner.username})))
    assert ("победа" if durak is not None else "ничья") in page

    assert client.get(reverse("games:profile", kwargs={"username": "nobody"})).status_code == 404


def test_a_guest_plays_against_a_bot_at_once(client):
    assert client.get(reverse("games:guest")).status_code == 405
    response = client.post(reverse("games:guest"))
    assert response.status_code == 302
    user = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    assert user.profile.is_guest
    assert not user.has_usable_password()
    assert user.username.startswith("Гость-")

    table = Table.objects.get(host=user)
    assert response.headers["Location"] == reverse("games:table", kwargs={"table_id": table.pk})
    assert table.seats_count == 2 and table.is_private and not table.rated
    seats = list(table.seats.order_by("number"))
    assert seats[0].user == user
    assert seats[1].user is None and seats[1].bot_level == "heuristic"
    assert table.status == Table.Status.PLAYING
    game = table.games.get()
    assert game.status == Game.Status.PLAYING
    assert game.bot_due_at is not None or 0 in engine.Game.from_json(game.state_json).to_move()

    # Coming back for more keeps the same guest.
    client.post(reverse("games:guest"))
    assert get_user_model().objects.filter(profile__is_guest=True).count() == 1
    assert Table.objects.filter(host=user).count() == 2


def test_guest_names_follow_the_language(client):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    client.post(reverse("games:guest"))
    user = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    assert user.username.startswith("Guest-")


def test_a_guest_cannot_open_a_rated_table(client):
    client.post(reverse("games:guest"))
    tables_before = Table.objects.count()
    response = client.post(
        reverse("games:table-new"),
        {
            "variant": "podkidnoy",
            "players": "2",
            "deck": "36",
            "first_bout_limit": "5",
            "throw_in": "all",
            "turn_seconds": "",
            "visibility": "public",
            "bot_level": "",
            "rated": "on",
        },
    )
    assert response.status_code == 200
    reason = "Для игры на рейтинг нужна учётная запись: сначала зарегистрируйтесь."
    assert reason in html(response)
    assert Table.objects.count() == tables_before


def test_a_guest_cannot_join_a_rated_table(client, players):
    open_rated = table_services.do_create_table(rules=engine.Rules(players=2), host=players[0], rated=True)
    client.post(reverse("games:guest"))
    response = client.post(reverse("games:table-join", kwargs={"table_id": open_rated.pk}))
    assert response.status_code == 302
    reason = "Для игры на рейтинг нужна учётная запись: сначала зарегистрируйтесь."
    assert [str(m) for m in get_messages(response.wsgi_request)] == [reason]
    table = Table.objects.get(pk=open_rated.pk)
    assert table.seats.filter(user__isnull=False).count() == 1


def test_a_guest_may_sign_up_for_a_real_account(client):
    client.post(reverse("games:guest"))
    page = html(client.get(reverse("games:signup")))
    assert "гость" in page.lower()
    client.post(
        reverse("games:signup"),
        {
            "username": "vera",
            "password1": "a-long-secret-42",
            "password2": "a-long-secret-42",
        },
    )
    user = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    assert user.username == "vera" and not user.profile.is_guest


def test_pages_switch_to_english(client, django_user_model):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = html(client.get(reverse("games:signup")))
    assert "Sign up" in page and "Регистрация" not in page
    page = html(client.get("/"))
    assert "Play against bots as a guest" in page
    django_user_model.objects.create_user("petya", password="pw-secret-123")
    page = html(client.get(reverse("games:profile", kwargs={"username": "petya"})))
    assert "Games played" in page
