"""The load test's own judgement: the moves it reads off a page, and its move-log check.

`manage.py loadtest` plays only what a seat's page offers (like a person, who
clicks what is shown) and after the run calls a move lost when the log lacks
it, holds it twice, or holds a move nobody sent. Both must be right, or its
figures mean nothing: here the page is the real table page, the log the real
service's.
"""

from __future__ import annotations

import pytest
from django.test import Client

from bench.loadtest import LoadFailed, Options, check_logs, legal_actions
from games import engine
from games.models import Game, Move
from games.services import play
from tests.support import games as support

pytestmark = pytest.mark.django_db


def page_of(user, table_id: int) -> bytes:
    client = Client()
    client.force_login(user)
    response = client.get(f"/table/{table_id}/")
    assert response.status_code == 200
    return response.content


@pytest.mark.parametrize(
    "rules",
    [
        engine.Rules(variant="podkidnoy", players=2),
        engine.Rules(variant="perevodnoy", players=3, trump_show_transfer=True, trump_six_swap=True),
    ],
    ids=["podkidnoy-2", "perevodnoy-3"],
)
def test_the_moves_read_off_each_page_are_exactly_the_legal_moves(rules):
    """R-all: at every step of a whole game, each seat's page offers its legal moves, no more."""
    users = [support.make_user(f"page-{i}") for i in range(rules.players)]
    game = support.open_game(users, rules)
    position = engine.Game.from_json(game.state_json)
    steps = 0
    while not position.is_over:
        for seat, user in enumerate(users):
            offered = legal_actions(page_of(user, game.table_id))
            assert sorted(offered) == sorted(position.legal_actions(seat)), (steps, seat)
        seat = position.to_move()[0]
        action = support.human_choice(position, seat, steps)
        play.do_player_move(game_id=game.pk, user=users[seat], action=action)
        position.act(seat, action)
        steps += 1
        assert steps < 400
    for user in users:
        assert legal_actions(page_of(user, game.table_id)) == []


def played(moves: int):
    """A game of two people with `moves` moves made; (game, {number: [seat, action]})."""
    users = [support.make_user("log-a"), support.make_user("log-b")]
    game = support.open_game(users, engine.Rules(players=2))
    position = engine.Game.from_json(game.state_json)
    seen = {}
    for number in range(moves):
        seat = position.to_move()[0]
        action = support.human_choice(position, seat, number)
        play.do_player_move(game_id=game.pk, user=users[seat], action=action)
        position.act(seat, action)
        seen[number] = [seat, action]
    return game, seen


def test_a_log_holding_what_the_clients_saw_loses_nothing():
    game, seen = played(6)
    assert check_logs({str(game.pk): seen}, {}) == {
        "games": 1,
        "missing": 0,
        "extra": 0,
        "late": 0,
        "bad_logs": 0,
        "server_moves": 0,
    }


def test_a_move_missing_from_the_log_is_lost():
    game, seen = played(6)
    Move.objects.filter(game=game, number=5).delete()
    Game.objects.filter(pk=game.pk).update(move_count=5)
    assert check_logs({str(game.pk): seen}, {})["missing"] == 1


def test_a_move_nobody_sent_is_extra_and_a_gap_is_a_bad_log():
    game, seen = played(6)
    del seen[2]  # the clients never saw move 2 accepted: the log's move 2 is foreign
    Move.objects.filter(game=game, number=4).update(number=40)  # and a hole at 4
    result = check_logs({str(game.pk): seen}, {})
    assert result["extra"] == 2 and result["missing"] == 1 and result["bad_logs"] == 1


def test_a_move_sent_but_never_confirmed_may_be_in_the_log_once():
    game, seen = played(6)
    seat, action = seen.pop(5)  # its update never came back in time (a timeout)
    result = check_logs({str(game.pk): seen}, {str(game.pk): [[seat, action]]})
    assert result["late"] == 1 and result["extra"] == 0 and result["missing"] == 0


def test_the_servers_own_timer_and_autopilot_moves_are_counted_apart_not_as_extra():
    """A turn that ran out is played by the server (R-T7): no client sent it, and it is no loss."""
    game, seen = played(6)
    Move.objects.filter(game=game, number=2).update(source=Move.Source.TIMEOUT)
    Move.objects.filter(game=game, number=4).update(source=Move.Source.AUTOPILOT)
    del seen[2], seen[4]
    result = check_logs({str(game.pk): seen}, {})
    assert result["server_moves"] == 2 and result["extra"] == 0 and result["missing"] == 0


def test_a_move_a_client_saw_accepted_but_the_server_logged_as_its_own_is_missing():
    game, seen = played(6)
    Move.objects.filter(game=game, number=3).update(source=Move.Source.TIMEOUT, action="take")
    result = check_logs({str(game.pk): seen}, {})
    assert result["missing"] == 1 and result["server_moves"] == 1


def test_bad_options_are_refused():
    for bad in ({"seats": 7}, {"tables": 0}, {"pace": 0}, {"url": "ftp://x"}, {"url": "http://a:1,nonsense"}):
        with pytest.raises(LoadFailed):
            Options(**{"url": "http://127.0.0.1:8000", **bad})
    assert Options(url="http://a:1/, http://b:2").urls == ["http://a:1", "http://b:2"]
