"""Double elimination at tables of 2: winners' and losers' brackets, a grand final with a bracket reset, byes,
and standings by the round reached."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import knockout_round
from tournaments.formats.double_elimination import (
    BRACKETS,
    GRAND_FINAL,
    MATCH_STATUSES,
    RESET_FINAL,
    MatchId,
    Source,
    double_elimination_bracket,
    double_elimination_order,
    double_elimination_state,
    double_elimination_view,
    places,
)


def W(r, s):
    return MatchId("W", r, s)


def L(r, s):
    return MatchId("L", r, s)


def play(bracket, choose, results=None):
    """Play the bracket to its end, one ready match at a time: ``choose(match)`` names the winner.
    Returns the results and the matches in the order played."""
    results = dict(results or {})
    played = []
    for _ in range(4 * len(bracket.entrants)):
        state = double_elimination_state(bracket, results)
        if state.finished:
            return results, played
        match = state.ready[0]
        results[match.id] = choose(match)
        played.append(match)
    raise AssertionError("the event did not end")


def favourite(match):
    return match.table[0]  # the better seed sits first


def ready_tables(bracket, results):
    return {str(m.id): list(m.table) for m in double_elimination_state(bracket, results).ready}


# ------------------------------------------------------------------ the winners' bracket and byes


def test_the_winners_bracket_is_seeded_as_the_knockout_seeds_it():
    bracket = double_elimination_bracket(list(range(1, 9)))
    state = double_elimination_state(bracket, {})
    assert [list(m.table) for m in state.ready] == knockout_round(list(range(1, 9)), 2).tables
    assert ready_tables(bracket, {}) == {"W1.1": [1, 8], "W1.2": [4, 5], "W1.3": [2, 7], "W1.4": [3, 6]}


def test_seeds_rank_the_entrants_as_in_a_knockout():
    bracket = double_elimination_bracket([50, 60, 70, 80], seeds={80: 1, 70: 2, 60: 3})
    assert bracket.entrants == (80, 70, 60, 50)
    assert ready_tables(bracket, {}) == {"W1.1": [80, 50], "W1.2": [70, 60]}


def test_the_top_seeds_get_the_byes_and_a_bye_is_not_a_loss():
    bracket = double_elimination_bracket(list(range(1, 7)))
    state = double_elimination_state(bracket, {})
    assert ready_tables(bracket, {}) == {"W1.2": [4, 5], "W1.4": [3, 6]}
    for bye, seed in ((W(1, 1), 1), (W(1, 3), 2)):
        match = state.matches[bye]
        assert match.status == "bye" and match.sides == (seed, None) and match.winner == seed
        assert match.loser is None and match.loser_to is None and match.winner_to == W(2, int(seed == 2) + 1)
    assert state.losses[1] == state.losses[2] == 0
    assert state.byes == {1: 1, 2: 1, 3: 0, 4: 0, 5: 0, 6: 0}


def test_a_bye_is_never_played_and_cannot_take_a_result():
    bracket = double_elimination_bracket([1, 2, 3])
    with pytest.raises(ValueError, match="bye"):
        double_elimination_state(bracket, {W(1, 1): 1})


def test_a_first_round_loser_whose_opponent_slot_is_a_bye_goes_through_the_losers_round_one():
    # Five entrants: 1, 2 and 3 have byes; only 4 v 5 is played in round one.
    bracket = double_elimination_bracket([1, 2, 3, 4, 5])
    state = double_elimination_state(bracket, {W(1, 2): 4})
    assert state.matches[L(1, 1)].status == "bye" and state.matches[L(1, 1)].winner == 5
    assert state.matches[L(1, 2)].status == "empty"
    assert state.byes[5] == 1 and state.losses[5] == 1


# ------------------------------------------------------------------ hand-built brackets


def test_two_entrants_play_the_winners_final_then_the_grand_final():
    bracket = double_elimination_bracket([1, 2])
    assert ready_tables(bracket, {}) == {"W1.1": [1, 2]}
    assert ready_tables(bracket, {W(1, 1): 1}) == {"GF": [1, 2]}
    state = double_elimination_state(bracket, {W(1, 1): 1, GRAND_FINAL: 1})
    assert state.champion == 1 and state.runner_up == 2 and state.losses == {1: 0, 2: 2}
    assert double_elimination_order(bracket, {W(1, 1): 1, GRAND_FINAL: 1}) == [[1], [2]]


def test_three_entrants():
    bracket = double_elimination_bracket([1, 2, 3])
    assert ready_tables(bracket, {}) == {"W1.2": [2, 3]}
    results = {W(1, 2): 3}  # an upset: 3 beats 2
    # 2 has nobody to meet in losers' round 1 (1's bye left the slot empty): he goes through.
    assert double_elimination_state(bracket, results).matches[L(1, 1)].winner == 2
    assert ready_tables(bracket, results) == {"W2.1": [1, 3]}
    results[W(2, 1)] = 1
    assert ready_tables(bracket, results) == {"L2.1": [2, 3]}
    results[L(2, 1)] = 2
    state = double_elimination_state(bracket, results)
    assert state.out_in == {3: L(2, 1)}
    assert ready_tables(bracket, results) == {"GF": [1, 2]}
    results[GRAND_FINAL] = 1
    assert double_elimination_order(bracket, results) == [[1], [2], [3]]
    assert len(results) == 2 * 3 - 2


def test_four_entrants_all_favourites():
    bracket = double_elimination_bracket([1, 2, 3, 4])
    results, played = play(bracket, favourite)
    assert [(str(m.id), list(m.table)) for m in played] == [
        ("W1.1", [1, 4]),
        ("W1.2", [2, 3]),
        ("W2.1", [1, 2]),
        ("L1.1", [3, 4]),
        ("L2.1", [2, 3]),
        ("GF", [1, 2]),
    ]
    assert double_elimination_order(bracket, results) == [[1], [2], [3], [4]]


def test_five_entrants_the_losers_round_two_bye_faces_the_winners_match_of_a_side_that_played():
    bracket = double_elimination_bracket([1, 2, 3, 4, 5])
    # Losers' round 1 slot 2 is empty (2 and 3 both had byes): its drop-round opponent gets a bye.
    # It is the loser of 1 v (4 or 5), who may have played round one, not the loser of 2 v 3.
    assert double_elimination_state(bracket, {}).matches[L(2, 2)].sources[1] == Source("loser", W(2, 1))
    results = {W(1, 2): 4, W(2, 1): 1, W(2, 2): 2}
    state = double_elimination_state(bracket, results)
    assert state.matches[L(2, 2)].status == "bye" and state.matches[L(2, 2)].winner == 4
    assert ready_tables(bracket, results) == {"W3.1": [1, 2], "L2.1": [3, 5]}
    results, played = play(bracket, favourite, results)
    assert len(played) + 3 == 2 * 5 - 2
    assert double_elimination_order(bracket, results) == [[1], [2], [3], [4], [5]]


def test_six_entrants_two_byes_and_every_losers_round_two_match_played():
    bracket = double_elimination_bracket([1, 2, 3, 4, 5, 6])
    results, played = play(bracket, favourite)
    assert [str(m.id) for m in played] == [
        "W1.2", "W1.4", "W2.1", "W2.2", "L2.1", "L2.2", "L3.1", "W3.1", "L4.1", "GF"
    ]  # fmt: skip
    state = double_elimination_state(bracket, results)
    assert state.matches[L(1, 1)].status == state.matches[L(1, 2)].status == "bye"
    assert max(state.byes.values()) == 1
    assert double_elimination_order(bracket, results) == [[1], [2], [3], [4], [5, 6]]


def test_eight_entrants_the_drop_round_crosses_the_bracket():
    bracket = double_elimination_bracket(list(range(1, 9)))
    results = {W(1, 1): 1, W(1, 2): 4, W(1, 3): 2, W(1, 4): 3}
    assert ready_tables(bracket, results) == {"W2.1": [1, 4], "W2.2": [2, 3], "L1.1": [5, 8], "L1.2": [6, 7]}
    results |= {W(2, 1): 1, W(2, 2): 2, L(1, 1): 5, L(1, 2): 6}
    # 5 lost to 4 in round one: he meets the loser from the other half (3), not 4 again.
    assert ready_tables(bracket, results) == {"W3.1": [1, 2], "L2.1": [3, 5], "L2.2": [4, 6]}


def test_same_round_losers_share_their_place():
    bracket = double_elimination_bracket(list(range(1, 9)))
    results, _ = play(bracket, favourite)
    order = double_elimination_order(bracket, results)
    assert order == [[1], [2], [3], [4], [5, 6], [7, 8]]
    assert places(order) == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 5, 7: 7, 8: 7}


# ------------------------------------------------------------------ two losses, the grand final and the reset


def test_a_side_is_out_after_its_second_loss_not_its_first():
    bracket = double_elimination_bracket([1, 2, 3, 4])
    state = double_elimination_state(bracket, {W(1, 1): 1, W(1, 2): 2})
    assert state.losses[4] == 1 and 4 not in state.out_in
    assert L(1, 1) in {m.id for m in state.ready}
    state = double_elimination_state(bracket, {W(1, 1): 1, W(1, 2): 2, L(1, 1): 3})
    assert state.losses[4] == 2 and state.out_in == {4: L(1, 1)}
    assert 4 not in {e for m in state.ready for e in m.table}


def test_the_grand_final_won_by_the_winners_side_ends_the_event():
    bracket = double_elimination_bracket([1, 2, 3, 4])
    results = {W(1, 1): 1, W(1, 2): 2, W(2, 1): 1, L(1, 1): 3, L(2, 1): 3}
    assert ready_tables(bracket, results) == {"GF": [1, 3]}
    results[GRAND_FINAL] = 1
    state = double_elimination_state(bracket, results)
    assert state.finished and state.champion == 1 and state.runner_up == 3
    assert state.matches[RESET_FINAL].status == "not_needed"
    assert state.losses[3] == 2 and state.out_in[3] == GRAND_FINAL
    with pytest.raises(ValueError, match="not needed"):
        double_elimination_state(bracket, results | {RESET_FINAL: 1})


def test_the_losers_side_winning_the_grand_final_resets_the_bracket():
    bracket = double_elimination_bracket([1, 2, 3, 4])
    results = {W(1, 1): 1, W(1, 2): 2, W(2, 1): 1, L(1, 1): 3, L(2, 1): 3, GRAND_FINAL: 3}
    state = double_elimination_state(bracket, results)
    assert not state.finished and state.losses[1] == state.losses[3] == 1
    assert state.matches[GRAND_FINAL].winner_to == state.matches[GRAND_FINAL].loser_to == RESET_FINAL
    (reset,) = state.ready
    assert reset.id == RESET_FINAL and reset.sides == (1, 3)  # the winners' bracket's winner first
    results[RESET_FINAL] = 3
    state = double_elimination_state(bracket, results)
    assert state.champion == 3 and state.runner_up == 1 and state.out_in[1] == RESET_FINAL
    assert state.losses == {1: 2, 2: 2, 3: 1, 4: 2}
    assert len(results) == 2 * 4 - 1
    assert double_elimination_order(bracket, results) == [[3], [1], [2], [4]]


def test_the_winners_side_may_also_win_the_reset_final():
    bracket = double_elimination_bracket([1, 2])
    state = double_elimination_state(bracket, {W(1, 1): 1, GRAND_FINAL: 2, RESET_FINAL: 1})
    assert state.champion == 1 and state.losses == {1: 1, 2: 2}


# ------------------------------------------------------------------ standings while it runs, the view


def test_while_it_runs_the_sides_still_in_share_the_top_place():
    bracket = double_elimination_bracket(list(range(1, 9)))
    results = {W(1, 1): 1, W(1, 2): 4, W(1, 3): 2, W(1, 4): 3, L(1, 1): 5, L(1, 2): 6}
    assert double_elimination_order(bracket, results) == [[1, 2, 3, 4, 5, 6], [7, 8]]


def test_the_view_keeps_every_slot_of_each_round():
    bracket = double_elimination_bracket([1, 2, 3, 4, 5])
    view = double_elimination_view(bracket, {W(1, 2): 5})
    assert [[str(m.id) for m in column] for column in view.winners] == [
        ["W1.1", "W1.2", "W1.3", "W1.4"],
        ["W2.1", "W2.2"],
        ["W3.1"],
    ]
    assert [len(column) for column in view.losers] == [2, 2, 1, 1]
    assert [m.status for m in view.winners[0]] == ["bye", "played", "bye", "bye"]
    assert view.winners[1][0].sides == (1, 5) and view.winners[1][0].status == "ready"
    assert [str(m.id) for m in view.finals] == ["GF", "GF2"]
    finished = double_elimination_view(bracket, play(bracket, favourite)[0])
    assert [str(m.id) for m in finished.finals] == ["GF"]  # no reset: the second final is not drawn


def test_match_codes_read_back():
    for match_id in (W(1, 3), L(12, 1), GRAND_FINAL, RESET_FINAL):
        assert MatchId.parse(str(match_id)) == match_id
    assert str(L(2, 1)) == "L2.1"
    for bad in ("X1.1", "W1", "W0.1", "GF3", ""):
        with pytest.raises(ValueError):
            MatchId.parse(bad)


def test_results_may_be_keyed_by_plain_tuples_or_codes():
    bracket = double_elimination_bracket([1, 2])
    assert double_elimination_state(bracket, {("W", 1, 1): 2, ("GF", 1, 1): 2}).champion == 2
    assert double_elimination_state(bracket, {"W1.1": 2, "GF": 1, "GF2": 1}).champion == 1
    with pytest.raises(ValueError, match="not a match"):
        double_elimination_state(bracket, {("W", 1): 2})


def test_the_stage_a_side_went_out_in_grows_with_the_losers_rounds_and_the_finals_come_last():
    bracket = double_elimination_bracket(list(range(1, 9)))  # 3 winners' rounds, 4 losers' rounds
    assert [bracket.stage(L(r, 1)) for r in range(1, 5)] == [1, 2, 3, 4]
    assert bracket.stage(GRAND_FINAL) == bracket.stage(RESET_FINAL) == 5
    with pytest.raises(ValueError):
        bracket.stage(W(1, 1))


# ------------------------------------------------------------------ bad input


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        double_elimination_bracket([1])
    with pytest.raises(ValueError):
        double_elimination_bracket([1, 2, 1])
    bracket = double_elimination_bracket([1, 2, 3, 4])
    with pytest.raises(ValueError, match="not a side"):
        double_elimination_state(bracket, {W(1, 1): 2})
    with pytest.raises(ValueError, match="pending"):
        double_elimination_state(bracket, {W(2, 1): 1})
    with pytest.raises(ValueError, match="no such match"):
        double_elimination_state(bracket, {W(3, 1): 1})


# ------------------------------------------------------------------ no rematch before it is unavoidable


def _first_possible_rematch(plan):
    """The first losers' round in which two sides who met in the winners' bracket can meet again (None:
    never), read from the plan's sources alone: a side dropped from winners' match ``m`` has met only
    sides from the winners' matches below ``m``."""
    sources = dict(plan)
    below: dict = {}

    def under(match_id):
        if match_id not in below:
            below[match_id] = set()
            for source in sources[match_id]:
                if source.kind == "winner":
                    below[match_id] |= {source.ref} | under(source.ref)
        return below[match_id]

    def origins(source):
        if source.kind == "loser":
            return {source.ref}
        if source.kind == "winner":
            return origins(sources[source.ref][0]) | origins(sources[source.ref][1])
        return set()

    rounds = []
    for match_id, (a, b) in plan:
        if match_id.bracket == "L" and any(
            m1 in under(m2) or m2 in under(m1) for m1, m2 in itertools.product(origins(a), origins(b))
        ):
            rounds.append(match_id.round)
    return min(rounds, default=None)


def _with_drop_orders(bracket, orders):
    plan = []
    for match_id, (a, b) in bracket.plan:
        if match_id.bracket == "L" and b.kind == "loser" and b.ref.bracket == "W" and b.ref.round > 1:
            b = Source("loser", W(b.ref.round, orders[b.ref.round][match_id.slot - 1]))
        plan.append((match_id, (a, b)))
    return plan


@pytest.mark.parametrize("n", [8, 16])
def test_no_order_of_the_drop_rounds_delays_the_first_possible_rematch_further(n):
    bracket = double_elimination_bracket(list(range(1, n + 1)))
    chosen = _first_possible_rematch(bracket.plan)
    rounds = range(2, bracket.rounds + 1)
    every = [
        dict(zip(rounds, combo, strict=True))
        for combo in itertools.product(*(itertools.permutations(range(1, (n >> r) + 1)) for r in rounds))
    ]
    best = max(_first_possible_rematch(_with_drop_orders(bracket, orders)) for orders in every)
    assert chosen == best == {8: 3, 16: 4}[n]
    uncrossed = {r: tuple(range(1, (n >> r) + 1)) for r in rounds}
    assert _first_possible_rematch(_with_drop_orders(bracket, uncrossed)) == 2  # why the drops cross


#: The first losers' round in which a rematch can happen, by the bracket's size (the module's docstring).
FIRST_REMATCH = {2: None, 4: 2, 8: 3, 16: 4, 32: 5, 64: 7}


@pytest.mark.parametrize("size", sorted(FIRST_REMATCH))
def test_the_first_possible_rematch_by_bracket_size(size):
    for n in (size // 2 + 1, size):
        if n >= 2:
            assert _first_possible_rematch(double_elimination_bracket(list(range(n))).plan) == FIRST_REMATCH[size]


# ------------------------------------------------------------------ properties over random fields and results


@settings(max_examples=120, deadline=None)
@given(st.integers(2, 64), st.integers(0, 10**6), st.floats(0.0, 1.0))
def test_any_field_and_any_results_play_out_by_the_rules(n, seed, upsets):
    rng = random.Random(seed)
    entrants = rng.sample(range(1000, 2000), n)
    bracket = double_elimination_bracket(entrants, seeds={e: rank for rank, e in enumerate(entrants, 1)})
    results, met = {}, set()
    for _ in range(2 * n):
        state = double_elimination_state(bracket, results)
        if state.finished:
            break
        busy = [e for match in state.ready for e in match.table]
        assert state.ready and len(busy) == len(set(busy))  # nobody plays two matches at once
        match = rng.choice(state.ready)
        a, b = match.table
        pair = frozenset(match.table)
        if match.id.bracket == "L" and pair in met:
            assert match.id.round >= FIRST_REMATCH[bracket.size]
        met.add(pair)
        results[match.id] = b if rng.random() < upsets else a
    state = double_elimination_state(bracket, results)
    assert state.finished  # the event always ends
    assert {m.status for m in state.matches.values()} <= MATCH_STATUSES
    assert {m.id.bracket for m in state.matches.values()} == set(BRACKETS[: 2 if n > 2 else 1]) | {"GF", "GF2"}
    reset = state.matches[RESET_FINAL].status == "played"
    # Every side but the champion ends with exactly two losses; the champion with one after a reset, else none.
    assert {e: state.losses[e] for e in entrants if e != state.champion} == dict.fromkeys(
        set(entrants) - {state.champion}, 2
    )
    assert state.losses[state.champion] == int(reset)
    assert len(results) == (2 * n - 1 if reset else 2 * n - 2)
    assert set(state.out_in) == set(entrants) - {state.champion}
    order = double_elimination_order(bracket, results)
    assert sorted(e for group in order for e in group) == sorted(entrants)  # a permutation of the field
    assert order[:2] == [[state.champion], [state.runner_up]]
    # Later elimination ranks higher; the same losers' round shares a place.
    rounds = [state.out_in[group[0]].round for group in order[2:]]
    assert rounds == sorted(rounds, reverse=True) and len(set(rounds)) == len(rounds)
    # Byes: only in the first two rounds of each bracket... and two only where the field is small.
    for match in state.matches.values():
        if match.status == "bye":
            assert match.id.round == 1 or match.id == L(2, match.id.slot)
    assert sum(1 for had in state.byes.values() if had == 2) <= max(0, 3 * bracket.size // 4 - n)
    assert max(state.byes.values()) <= 2
