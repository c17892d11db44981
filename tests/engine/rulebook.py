"""Helpers the rule-book tests share: play moves, list legal moves, check refusals."""

import pytest

from games.engine import REFUSALS, IllegalAction


def legal(game, seat):
    return {str(a) for a in game.legal_actions(seat)}


def play(game, *moves):
    events = []
    for seat, text in moves:
        events.extend(game.act(seat, text))
    return events


def refused(game, seat, text, *words, code=None):
    """`text` is refused with a reason naming `words` (and with `code`, when given), and nothing changes."""
    before = game.to_json()
    with pytest.raises(IllegalAction) as info:
        game.act(seat, text)
    reason = info.value.reason
    assert isinstance(reason, str) and reason
    assert info.value.code in REFUSALS and reason == REFUSALS[info.value.code].format(**info.value.params)
    if code is not None:
        assert info.value.code == code, (info.value.code, reason)
    for word in words:
        assert word in reason, reason
    assert game.to_json() == before
    assert text not in legal(game, seat)
    return reason


def attacks(game, seat):
    return {a for a in legal(game, seat) if a.startswith("attack")}


def defences(game, seat):
    return {a for a in legal(game, seat) if a.startswith("defend")}


def kinds(events):
    return [e["type"] for e in events]


def of_type(events, kind):
    return [e for e in events if e["type"] == kind]


def table(game):
    return [tuple(pair) for pair in game.table]


def draws(events):
    return [(e["seat"], e["cards"]) for e in of_type(events, "draw")]


def next_bout(events):
    (start,) = of_type(events, "bout_start")
    return start["attacker"], start["defender"]


def game_over(events):
    (over,) = of_type(events, "game_over")
    return over
