"""`Game.result()` (docs/engine.md): the outcome of R19-R21 in one JSON-safe dict."""

import json

from games.engine import Game, Rules
from tests.engine.rulebook import game_over, play


def test_no_result_while_the_game_runs():
    game = Game.new(Rules(players=3), seed="running")
    assert game.result() is None


def test_r20_a_durak():
    game = Game.from_layout(Rules(), hands=[["6S"], ["7D"]], trump="H", attacker=0, first_bout=False)
    events = play(game, (0, "attack 6S"), (1, "take"))
    result = game.result()
    assert result == {"places": {"0": 1, "1": 2}, "durak": 1, "losers": [1], "draw": False}
    over = game_over(events)
    assert {key: over[key] for key in result} == result


def test_r20_a_draw_when_the_last_cards_go_out_together():
    game = Game.from_layout(Rules(), hands=[["6S"], ["7S"]], trump="H", attacker=0, first_bout=False)
    play(game, (0, "attack 6S"), (1, "defend 6S with 7S"))
    assert game.result() == {"places": {"0": 1, "1": 1}, "durak": None, "losers": [], "draw": True}


def test_r21_the_pair_left_holding_cards_loses_together():
    rules = Rules(players=4, partners=True)
    game = Game.from_layout(rules, hands=[["6S"], ["7D"], [], ["9C"]], trump="H", attacker=0, first_bout=False)
    play(game, (0, "attack 6S"), (1, "take"))
    assert game.result() == {"places": {"0": 2, "1": 3, "2": 1, "3": 3}, "durak": None, "losers": [1, 3], "draw": False}


def test_the_result_survives_a_json_round_trip():
    game = Game.from_layout(Rules(), hands=[["6S"], ["7D"]], trump="H", attacker=0, first_bout=False)
    play(game, (0, "attack 6S"), (1, "take"))
    again = Game.from_json(game.to_json())
    assert again.result() == game.result() == json.loads(json.dumps(game.result()))
