"""Judging one decision from one seat's view (pure: no database)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import engine
from games.bots import get_bot
from games.bots.arena import next_seat
from games.bots.evaluate import evaluate
from reviews.analysis import Thresholds, judge

from .positions import endgame

THRESHOLDS = Thresholds()


def test_taking_when_covering_the_last_card_wins_is_a_blunder():
    """R19/R20 endgame, stock gone: the defender's one card (A♠) covers the 6♠ and he
    is out; if he takes, the attacker leads his last card and he is the durak."""
    position = endgame(["7H"], ["AS"], [["6S", None]])
    view = position.view(1)
    assert set(view["legal_actions"]) == {"defend 6S with AS", "take"}

    verdict = judge(view, "take", THRESHOLDS, deals=40)

    assert verdict.label == "blunder"
    assert verdict.best == "defend 6S with AS"
    assert verdict.value_best == 1.0
    assert verdict.value_played == 0.0
    assert verdict.drop == 1.0


def test_the_best_move_played_is_not_marked():
    position = endgame(["7H"], ["AS"], [["6S", None]])
    verdict = judge(position.view(1), "defend 6S with AS", THRESHOLDS, deals=40)
    assert verdict.label == ""
    assert verdict.drop == 0.0
    assert verdict.best == "defend 6S with AS"


def test_a_decision_without_a_choice_is_not_judged():
    """The attacker has only one card to lead (R8): nothing to judge."""
    position = endgame(["7H"], ["AS", "6C"], [])
    view = position.view(0)
    assert view["legal_actions"] == ["attack 7H"]
    assert judge(view, "attack 7H", THRESHOLDS, deals=10) is None


def test_an_illegal_move_is_refused():
    position = endgame(["7H"], ["AS"], [["6S", None]])
    with pytest.raises(ValueError):
        judge(position.view(1), "pass", THRESHOLDS, deals=10)


@pytest.mark.parametrize(
    ("drop", "label"),
    [(0.0, ""), (0.049, ""), (0.05, "inaccuracy"), (0.099, "inaccuracy"), (0.10, "mistake"), (0.2, "blunder")],
)
def test_thresholds_label_the_drop(drop, label):
    assert THRESHOLDS.label(drop) == label


def test_thresholds_must_be_ordered():
    with pytest.raises(ValueError):
        Thresholds(inaccuracy=0.2, mistake=0.1, blunder=0.3)


def test_the_evaluation_sees_only_the_seats_view():
    """Two positions that differ only in where the hidden cards are (the attacker's
    hand or the stock) look the same to the defender: every action gets the very
    same value."""
    table = [["6S", None]]
    one = endgame(["7H", "8C", "KD"], ["AS", "6D", "9S"], table, stock=["10H", "QC", "7D", "9H"])
    other = endgame(["10H", "QC", "7D"], ["AS", "6D", "9S"], table, stock=["7H", "8C", "KD", "9H"])
    assert one.hand(0) != other.hand(0)
    view_one, view_other = one.view(1), other.view(1)
    assert view_one == view_other

    first = evaluate(view_one, deals=30, seed=5)
    second = evaluate(view_other, deals=30, seed=5)
    assert first.values == second.values
    assert first.scores == second.scores


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 30))
def test_the_same_view_gets_the_same_values_and_every_legal_action_a_value(seed, moves):
    """Repeatable (seeded from the view), and every legal action is valued in [0, 1]."""
    game = engine.Game.new(engine.Rules(players=2), seed=seed, dealer=0)
    bot = get_bot("medium", seed=1)
    for _ in range(moves):
        if game.is_over:
            return
        seat = next_seat(game)
        game.act(seat, bot.choose(game.view(seat)))
    if game.is_over:
        return
    seat = next_seat(game)
    view = game.view(seat)
    first = evaluate(view, deals=8, seed=3)
    if len(view["legal_actions"]) < 2:
        assert first is None
        return
    assert set(first.values) == set(view["legal_actions"])
    assert all(0.0 <= v <= 1.0 for v in first.values.values())
    assert evaluate(view, deals=8, seed=3).values == first.values
