"""The lobby, the new-table form and the table endpoints."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from games import engine
from games.models import Game, Table
from games.services import tables as table_services

pytestmark = pytest.mark.django_db

BASE_FORM = {
    "variant": "podkidnoy",
    "players": "2",
    "deck": "36",
    "first_bout_limit": "5",
    "throw_in": "all",
    "turn_seconds": "",
    "visibility": "public",
    "bot_level": "",
}


def html(response) -> str:
    return response.content.decode()


def messages_of(response) -> list[str]:
    """The messages this request added (earlier ones may still wait to be shown)."""
    storage = get_messages(response.wsgi_request)
    return [str(m) for m in storage._queued_messages]


def table_url(table_id: int) -> str:
    return reverse("games:table", kwargs={"table_id": table_id})


@pytest.fixture
def host_client(client, players):
    client.force_login(players[0])
    return client


def new_table(host, players=2, **options):
    return table_services.do_create_table(rules=engine.Rules(players=players), host=host, **options)


# ----------------------------------------------------------------- the lobby


def test_lobby_lists_open_public_tables(client, players):
    public = new_table(players[0], players=3, turn_seconds=30, bot_level="random")
    private = new_table(players[1], is_private=True)
    page = html(client.get("/"))
    assert f'id="lobby-table-{public.pk}"' in page
    assert f'id="lobby-table-{private.pk}"' not in page
    assert "player0" in page
    assert "Подкидной" in page
    assert "30 с на ход" in page
    assert 'ws-connect="/ws/lobby/"' in page
    assert 'hx-ext="ws"' in page


def test_lobby_offers_a_seat_and_the_guest_button(client, players):
    table = new_table(players[0])
    page = html(client.get("/"))
    assert reverse("games:guest") in page
    assert reverse("games:table-join", kwargs={"table_id": table.pk}) not in page  # not signed in

    client.force_login(players[1])
    page = html(client.get("/"))
    assert reverse("games:table-join", kwargs={"table_id": table.pk}) in page
    assert reverse("games:table-new") in page


def test_own_private_tables_are_listed_for_their_players(client, players):
    private = new_table(players[0], is_private=True)
    client.force_login(players[0])
    page = html(client.get("/"))
    assert f'id="lobby-table-{private.pk}"' in page
    assert table_url(private.pk) in page


# ------------------------------------------------------------ the new-table form


def test_new_table_needs_a_login(client):
    response = client.get(reverse("games:table-new"))
    assert response.status_code == 302
    assert response.headers["Location"].startswith(reverse("games:login"))


def test_new_table_form_offers_every_option(host_client):
    page = html(host_client.get(reverse("games:table-new")))
    for name in (
        "variant",
        "players",
        "partners",
        "deck",
        "first_bout_limit",
        "throw_in",
        "trump_show_transfer",
        "trump_six_swap",
        "turn_seconds",
        "visibility",
        "bot_level",
        "rated",
    ):
        assert f'name="{name}"' in page, name
    for value in ("podkidnoy", "perevodnoy", "24", "52", "neighbours", "15", "60", "private", "easy", "medium"):
        assert f'value="{value}"' in page, value


VALID = [
    ({}, {}),
    (
        {"variant": "perevodnoy", "players": "4", "partners": "on", "trump_show_transfer": "on"},
        {"variant": "perevodnoy", "players": 4, "partners": True, "trump_show_transfer": True},
    ),
    (
        {
            "players": "6",
            "partners": "on",
            "deck": "52",
            "first_bout_limit": "6",
            "throw_in": "neighbours",
            "trump_six_swap": "on",
        },
        {
            "players": 6,
            "partners": True,
            "deck": 52,
            "first_bout_limit": 6,
            "throw_in": "neighbours",
            "trump_six_swap": True,
        },
    ),
    ({"players": "3", "deck": "24"}, {"players": 3, "deck": 24}),
    ({"players": "5", "variant": "perevodnoy"}, {"players": 5, "variant": "perevodnoy"}),
]


@pytest.mark.parametrize("fields,rules", VALID)
def test_new_table_with_rules(host_client, players, fields, rules):
    response = host_client.post(reverse("games:table-new"), {**BASE_FORM, **fields})
    table = Table.objects.get()
    assert response.status_code == 302
    assert response.headers["Location"] == table_url(table.pk)
    assert table.rules == engine.Rules(**rules).to_dict()
    assert table.variant == table.rules["variant"] and table.seats_count == table.rules["players"]
    assert table.host == players[0]
    assert table.seats.get(number=0).user == players[0]
    assert table.status == Table.Status.WAITING


@pytest.mark.parametrize("timer", ["", "15", "30", "60"])
def test_new_table_turn_timer(host_client, timer):
    host_client.post(reverse("games:table-new"), {**BASE_FORM, "visibility": "private", "turn_seconds": timer})
    assert Table.objects.get().turn_seconds == (int(timer) if timer else None)


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_new_table_with_bots(host_client, players, level):
    host_client.post(reverse("games:table-new"), {**BASE_FORM, "players": "3", "bot_level": level})
    table = Table.objects.get()
    assert table.bot_level == level
    host_client.post(reverse("games:table-start", kwargs={"table_id": table.pk}))
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert [s.bot_level for s in table.seats.order_by("number")] == ["", level, level]


def test_new_private_and_rated_tables(host_client):
    # A private table is never rated (issue 16, "Ratings can be farmed"): tests/ratings/test_trust.py.
    host_client.post(reverse("games:table-new"), {**BASE_FORM, "visibility": "private"})
    host_client.post(reverse("games:table-new"), {**BASE_FORM, "rated": "on"})
    private, rated = Table.objects.order_by("pk")
    assert private.is_private and not private.rated
    assert rated.rated and not rated.is_private


INVALID = [
    ({"players": "3", "partners": "on"}, "Командная игра"),
    ({"trump_show_transfer": "on"}, "только в переводном"),
    ({"players": "5", "deck": "24"}, "Колода из 24 карт"),
    ({"deck": "24", "trump_six_swap": "on"}, "шестёрки"),
    ({"rated": "on", "bot_level": "medium"}, "Рейтинговые столы — только для людей: без ботов."),
    ({"players": "7"}, "players"),
    ({"turn_seconds": "45"}, "turn_seconds"),
]


@pytest.mark.parametrize("fields,error", INVALID)
def test_new_table_refuses_invalid_combinations(host_client, fields, error):
    response = host_client.post(reverse("games:table-new"), {**BASE_FORM, **fields})
    assert response.status_code == 200
    page = html(response)
    assert error in page
    assert "errorlist" in page
    assert not Table.objects.exists()


def test_rules_errors_are_the_engines_in_english(host_client):
    host_client.post(reverse("set_language"), {"language": "en", "next": "/"})
    response = host_client.post(reverse("games:table-new"), {**BASE_FORM, "players": "3", "partners": "on"})
    with pytest.raises(ValueError) as error:
        engine.Rules(players=3, partners=True)
    assert str(error.value) in html(response)


# ------------------------------------------------------------------- invites


def test_invite_link_remembers_the_table(client, players):
    table = new_table(players[0], is_private=True)
    response = client.get(reverse("games:table-invite", kwargs={"token": table.invite_token}))
    assert response.status_code == 302
    assert response.headers["Location"] == table_url(table.pk)
    assert client.session["invited_tables"] == [table.pk]
    client.get(reverse("games:table-invite", kwargs={"token": table.invite_token}))
    assert client.session["invited_tables"] == [table.pk]
    assert client.get(reverse("games:table-invite", kwargs={"token": "nope"})).status_code == 404


# ------------------------------------------------------------- the endpoints


@pytest.mark.parametrize("name", ["table-join", "table-leave", "table-start", "table-bot", "table-resign"])
def test_endpoints_are_post_only_and_need_a_login(client, players, name):
    table = new_table(players[0])
    url = reverse(f"games:{name}", kwargs={"table_id": table.pk})
    assert client.get(url).status_code == 405
    response = client.post(url)
    assert response.status_code == 302
    assert response.headers["Location"].startswith(reverse("games:login"))


def test_join_pick_a_seat_and_leave(client, players):
    table = new_table(players[0], players=3)
    client.force_login(players[1])
    response = client.post(reverse("games:table-join", kwargs={"table_id": table.pk}), {"seat": "2"})
    assert response.headers["Location"] == table_url(table.pk)
    assert table.seats.get(number=2).user == players[1]

    response = client.post(reverse("games:table-join", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["Вы уже сидите за этим столом."]

    response = client.post(reverse("games:table-leave", kwargs={"table_id": table.pk}))
    assert response.headers["Location"] == reverse("games:home")
    assert table.seats.get(number=2).user is None

    response = client.post(reverse("games:table-leave", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["Вы не сидите за этим столом."]


def test_join_refuses_a_taken_seat_and_a_full_table(client, players):
    table = new_table(players[0], players=3)
    client.force_login(players[1])
    response = client.post(reverse("games:table-join", kwargs={"table_id": table.pk}), {"seat": "0"})
    assert messages_of(response) == ["Это место занято."]

    for seat in (1, 2):
        table_services.do_set_bot(table_id=table.pk, user=players[0], seat_number=seat, level="random")
    response = client.post(reverse("games:table-join", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["Все места за столом заняты."]
    assert not table.seats.filter(user=players[1]).exists()


def test_a_full_table_starts_itself(client, players):
    table = new_table(players[0])
    client.force_login(players[1])
    client.post(reverse("games:table-join", kwargs={"table_id": table.pk}))
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    client.force_login(players[2])
    response = client.post(reverse("games:table-join", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["Игра за этим столом уже началась."]


def test_only_the_host_starts(client, players):
    table = new_table(players[0], players=3, bot_level="heuristic")
    table_services.do_join_table(table_id=table.pk, user=players[1])
    client.force_login(players[1])
    response = client.post(reverse("games:table-start", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["Начинает игру только хозяин стола."]
    assert not Game.objects.exists()

    client.force_login(players[0])
    response = client.post(reverse("games:table-start", kwargs={"table_id": table.pk}))
    assert response.headers["Location"] == table_url(table.pk)
    assert messages_of(response) == []
    game = Game.objects.get()
    assert game.seats.get(number=2).bot_level == "heuristic"

    response = client.post(reverse("games:table-start", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["Игра уже идёт."]


def test_start_needs_every_seat_filled(host_client, players):
    table = new_table(players[0], players=3)
    response = host_client.post(reverse("games:table-start", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["Перед раздачей на каждом месте должен быть игрок или бот."]
    assert not Game.objects.exists()


def test_host_seats_and_removes_bots(client, players):
    table = new_table(players[0], players=3)
    url = reverse("games:table-bot", kwargs={"table_id": table.pk})
    client.force_login(players[1])
    response = client.post(url, {"seat": "1", "level": "random"})
    assert messages_of(response) == ["Сажать ботов может только хозяин стола."]

    client.force_login(players[0])
    client.post(url, {"seat": "1", "level": "random"})
    assert table.seats.get(number=1).bot_level == "random"
    client.post(url, {"seat": "1", "level": ""})
    assert table.seats.get(number=1).bot_level == ""
    response = client.post(url, {"seat": "1", "level": "grandmaster"})
    assert "grandmaster" in messages_of(response)[0]
    response = client.post(url, {"seat": "0", "level": "random"})
    assert messages_of(response) == ["Это место не свободно."]
    response = client.post(url, {"level": "random"})
    assert messages_of(response)


def test_resign_hands_the_seat_to_the_autopilot(client, players):
    table = new_table(players[0])
    client.force_login(players[0])
    response = client.post(reverse("games:table-resign", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["За этим столом сейчас не играют."]

    table_services.do_join_table(table_id=table.pk, user=players[1])  # full: it starts
    game = Game.objects.get()
    response = client.post(reverse("games:table-resign", kwargs={"table_id": table.pk}))
    assert response.headers["Location"] == table_url(table.pk)
    seat = game.seats.get(number=0)
    assert seat.autopilot and seat.abandoned

    client.force_login(players[2])
    response = client.post(reverse("games:table-resign", kwargs={"table_id": table.pk}))
    assert messages_of(response) == ["Вы не участвуете в этой игре."]


def test_leaving_a_running_game_is_refused(client, players):
    table = new_table(players[0])
    table_services.do_join_table(table_id=table.pk, user=players[1])
    client.force_login(players[1])
    response = client.post(reverse("games:table-leave", kwargs={"table_id": table.pk}))
    assert response.headers["Location"] == table_url(table.pk)
    assert messages_of(response) == ["Игра идёт: чтобы уйти, сдайтесь."]
