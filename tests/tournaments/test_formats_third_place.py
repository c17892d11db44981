"""A knockout's third-place match: the two semi-final losers play for third and fourth place."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import knockout_round, knockout_survivors
from tournaments.formats.third_place import is_semi_final, semi_final_losers, third_place_match, third_place_order


def test_the_semi_final_losers_play_for_third_place_the_top_semi_final_first():
    seeds = {s: s for s in range(1, 9)}
    semi = knockout_round([1, 4, 2, 7], 2, seeds=seeds, round_number=3)
    assert semi.tables == [[1, 4], [2, 7]]
    results = [{1: 2, 4: 1}, {2: 1, 7: 2}]  # 4 beats 1, 2 beats 7
    assert third_place_match(semi.tables, results) == [1, 7]


def test_the_third_place_match_splits_the_shared_third_place():
    order = [[4], [2], [1, 7], [3, 5, 6, 8]]
    assert third_place_order(order, {1: 2, 7: 1}) == [[4], [2], [7], [1], [3, 5, 6, 8]]


def test_a_semi_final_round_with_a_bye_has_no_third_place_match():
    # Three left after a withdrawal: one semi-final and a bye; its loser is third alone.
    semi = knockout_round([2, 3, 5], 2, seeds={2: 2, 3: 3, 5: 5})
    assert semi.byes == [2] and semi.tables == [[3, 5]]
    assert semi_final_losers(semi.tables, [{3: 1, 5: 2}]) == [5]
    assert third_place_match(semi.tables, [{3: 1, 5: 2}]) is None


def test_the_semi_final_round_is_the_one_with_three_or_four_left():
    assert [alive for alive in range(2, 17) if is_semi_final(alive)] == [3, 4]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="one winner"):
        third_place_match([[1, 2], [3, 4]], [{1: 1, 2: 1}, {3: 1, 4: 2}])
    with pytest.raises(ValueError, match="tables of 2"):
        third_place_match([[1, 2, 3], [4, 5, 6]], [{1: 1, 2: 2, 3: 3}, {4: 1, 5: 2, 6: 3}])
    with pytest.raises(ValueError, match="needs its result"):
        third_place_match([[1, 2], [3, 4]], [{1: 1, 2: 2}])
    with pytest.raises(ValueError, match="other entrants"):
        third_place_match([[1, 2], [3, 4]], [{1: 1, 2: 2}, {3: 1, 5: 2}])
    with pytest.raises(ValueError, match="share third place"):
        third_place_order([[1], [2], [3, 4]], {3: 1, 5: 2})
    with pytest.raises(ValueError, match="champion"):
        third_place_order([[1, 2], [3, 4]], {3: 1, 4: 2})


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 64), st.integers(0, 10**6))
def test_a_knockout_with_a_third_place_match_orders_its_first_four_alone(n, seed):
    rng = random.Random(seed)
    seeds = {entrant: rank for rank, entrant in enumerate(rng.sample(range(100, 200), n), start=1)}
    alive, out_in, number, third = list(seeds), {}, 0, None
    while len(alive) > 1:
        number += 1
        seating = knockout_round(alive, 2, seeds=seeds, round_number=number)
        results = [dict(zip(rng.sample(table, 2), (1, 2), strict=True)) for table in seating.tables]
        if is_semi_final(len(alive)):
            third = third_place_match(seating.tables, results)
        elif third is not None:
            # The third-place match is played alongside the final, by two who are not in it.
            assert not set(third) & set(seating.seated())
            third_result = dict(zip(rng.sample(third, 2), (1, 2), strict=True))
        survivors = knockout_survivors(results) + seating.byes
        out_in |= dict.fromkeys(set(alive) - set(survivors), number)
        alive = survivors
    champion = alive[0]
    by_round = {}
    for entrant, round_number in out_in.items():
        by_round.setdefault(round_number, []).append(entrant)
    order = [[champion]] + [sorted(by_round[r]) for r in sorted(by_round, reverse=True)]
    assert third is not None and order[2] == sorted(third)
    order = third_place_order(order, third_result)
    assert [len(group) for group in order[:4]] == [1, 1, 1, 1]
    assert sorted(e for group in order for e in group) == sorted(seeds)
