"""The database is the truth: a game resumed from seed and move log plays on identically."""

from __future__ import annotations

import pytest
from django.db import connection

from games import engine
from games.models import Game, GameSeat
from games.services import positions, tables

from .helpers import fresh, latest_game, make_user, moves, play_humans

pytestmark = pytest.mark.django_db

SEED = "a5" * 32


@pytest.fixture
def fixed_seed(monkeypatch):
    monkeypatch.setattr(tables, "new_seed", lambda: SEED)


def three_player_game(names):
    users = [make_user(n) for n in names]
    rules = engine.Rules(variant="perevodnoy", players=3)
    table = tables.do_create_table(rules=rules, host=users[0], seat_users=users, start=True)
    return latest_game(table), dict(enumerate(users))


def test_the_cache_always_equals_a_replay_of_the_log(fixed_seed):
    game, users = three_player_game(["a1", "a2", "a3"])
    game = play_humans(game, users, check_cache=True)
    assert game.is_over
    assert positions.replay(game) == engine.Game.from_json(game.state_json)
    for upto in (0, 1, game.move_count // 2):
        position = positions.replay(game, upto=upto)
        assert position == positions.replay(fresh(game), upto=upto)
    assert positions.replay(game, upto=0) == positions.deal(engine.Rules.from_dict(game.rules), game.seed, game.dealer)


def test_a_game_resumed_after_a_restart_plays_on_identically(fixed_seed):
    # The same deal twice: once straight through, once with a "restart" halfway.
    straight, users_a = three_player_game(["b1", "b2", "b3"])
    straight = play_humans(straight, users_a)

    resumed, users_b = three_player_game(["c1", "c2", "c3"])
    assert resumed.seed == straight.seed
    resumed = play_humans(resumed, users_b, max_moves=straight.move_count // 2)
    halfway = positions.replay(resumed)
    # The process dies: the cached position is gone, and so is every connection.
    Game.objects.filter(pk=resumed.pk).update(state_json="")
    connection.close()
    resumed = Game.objects.get(pk=resumed.pk)
    assert positions.position_of(resumed) == halfway  # rebuilt from seed and moves
    resumed = play_humans(resumed, users_b, check_cache=True)

    assert resumed.is_over
    assert [m[:2] for m in moves(resumed)] == [m[:2] for m in moves(straight)]
    assert resumed.result == straight.result
    places = lambda g: list(GameSeat.objects.filter(game=g).values_list("number", "place", "is_loser"))  # noqa: E731
    assert places(resumed) == places(straight)
