"""Play again deals the next game only when every person seated agreed (bots
always do); an absent player is never dealt into a game he did not ask for.
The lobby lists waiting and playing tables only; a POST to a missing table is a 404."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from games import engine
from games.models import Table
from games.services import tables
from tests.support.games import latest_game, play_humans, play_to_end

pytestmark = pytest.mark.django_db


def start_url(table) -> str:
    return reverse("games:table-start", kwargs={"table_id": table.pk})


def queued(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)._queued_messages]


def finished_duel(players):
    """Two people played one game at a public table and it is over."""
    table = tables.do_create_table(rules=engine.Rules(players=2), host=players[0])
    tables.do_join_table(table_id=table.pk, user=players[1])  # a full table starts itself
    play_to_end(latest_game(table), players[:2])
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    return table


def test_one_player_alone_cannot_deal_the_absent_opponent_into_a_new_game(client, players):
    table = finished_duel(players)
    client.force_login(players[0])
    response = client.post(start_url(table))
    # Said by the table's seating region (gone with the deal), never a page message that
    # would stay on the page through the whole next game.
    assert queued(response) == []
    page = client.get(response["Location"]).content.decode()
    seating = page[page.index('<div id="t-seating"') :]
    assert "Вы согласились сыграть ещё: игра начнётся, когда согласятся все за столом." in seating
    assert page.count("Вы согласились сыграть ещё") == 1
    assert table.games.count() == 1
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert table.seats.get(user=players[0]).ready and not table.seats.get(user=players[1]).ready
    # Pressing again changes nothing: one agreement is not two.
    assert tables.do_start_game(table_id=table.pk, user=players[0]) is None
    assert table.games.count() == 1


def test_the_next_game_is_dealt_when_every_person_agreed(players):
    table = finished_duel(players)
    assert tables.do_start_game(table_id=table.pk, user=players[1]) is None
    second = tables.do_start_game(table_id=table.pk, user=players[0])
    assert second is not None and second.number == 2
    assert {s.user for s in second.seats.all()} == set(players[:2])
    # The agreement was for that game only: after it, everyone is asked anew.
    assert not table.seats.filter(ready=True).exists()


def test_the_table_page_shows_who_agreed_and_the_button_to_the_others(client, players):
    table = finished_duel(players)
    tables.do_start_game(table_id=table.pk, user=players[0])
    client.force_login(players[1])
    page = client.get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()
    assert "готов сыграть ещё" in page
    assert "Сыграть ещё" in page  # players[1] has not agreed yet: the button is his
    client.force_login(players[0])
    page = client.get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()
    assert "Вы согласились сыграть ещё" in page
    assert f'action="{start_url(table)}"' not in page  # he has agreed: no second press


def test_a_player_may_leave_instead_and_the_other_then_plays_a_bot(players):
    table = tables.do_create_table(rules=engine.Rules(players=2), host=players[0], bot_level="random")
    tables.do_join_table(table_id=table.pk, user=players[1])
    play_to_end(latest_game(table), players[:2])
    assert tables.do_start_game(table_id=table.pk, user=players[0]) is None
    tables.do_leave_table(table_id=table.pk, user=players[1])
    second = tables.do_start_game(table_id=table.pk, user=players[0])
    assert second is not None
    assert [(s.user, s.bot_level) for s in second.seats.all()] == [(players[0], ""), (None, "random")]


def test_a_newcomer_at_a_table_between_games_does_not_deal_the_others_in(players):
    table = tables.do_create_table(rules=engine.Rules(players=3), host=players[0])
    tables.do_join_table(table_id=table.pk, user=players[1])
    tables.do_join_table(table_id=table.pk, user=players[2])
    play_to_end(latest_game(table), players[:3])
    tables.do_leave_table(table_id=table.pk, user=players[2])
    tables.do_join_table(table_id=table.pk, user=players[3])  # the table is full again
    assert table.games.count() == 1
    tables.do_start_game(table_id=table.pk, user=players[0])
    assert table.games.count() == 1  # players[1] has not agreed
    assert tables.do_start_game(table_id=table.pk, user=players[1]).number == 2


def test_against_bots_one_press_deals_at_once(players):
    table = tables.do_create_table(
        rules=engine.Rules(players=2), host=players[0], bot_level="random", bot_seats={1: "random"}, start=True
    )
    assert play_humans(latest_game(table), {0: players[0]}).is_over
    assert tables.do_start_game(table_id=table.pk, user=players[0]).number == 2


# ------------------------------------------------------------------- the lobby


def test_the_lobby_lists_waiting_and_playing_tables_only(client, players):
    waiting = tables.do_create_table(rules=engine.Rules(players=2), host=players[4])
    finished = finished_duel(players)
    playing = tables.do_create_table(rules=engine.Rules(players=2), host=players[2])
    tables.do_join_table(table_id=playing.pk, user=players[3])
    page = client.get("/").content.decode()
    assert f'id="lobby-table-{waiting.pk}"' in page
    assert f'id="lobby-table-{playing.pk}"' in page
    assert f'id="lobby-table-{finished.pk}"' not in page


# --------------------------------------------------------- a table that is not there


@pytest.mark.parametrize("name", ["table-join", "table-leave", "table-start", "table-bot", "table-resign"])
def test_a_post_to_a_missing_table_is_a_404_with_no_message_for_later(client, players, name):
    client.force_login(players[0])
    response = client.post(reverse(f"games:{name}", kwargs={"table_id": 987654}))
    assert response.status_code == 404
    assert queued(response) == []
    page = client.get("/").content.decode()
    assert "Такого стола нет" not in page
