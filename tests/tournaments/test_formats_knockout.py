"""Knockout (issue #9, formats): a seeded bracket at 2-player tables, table elimination at larger ones."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import bracket_order, knockout_round, knockout_survivors


def test_bracket_order_keeps_the_top_seeds_apart():
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_eight_seeds_meet_one_against_eight_in_bracket_order():
    seeds = {100 + s: s for s in range(1, 9)}
    seating = knockout_round(list(seeds), 2, seeds=seeds)
    assert seating.tables == [[101, 108], [104, 105], [102, 107], [103, 106]]
    assert seating.byes == [] and seating.repeats == 0


def test_without_seeds_the_given_order_is_the_seeding():
    seating = knockout_round([5, 6, 7, 8], 2)
    assert seating.tables == [[5, 8], [6, 7]]


def test_the_top_seeds_get_the_byes_when_the_field_is_not_a_power_of_two():
    seeds = {s: s for s in range(1, 7)}
    seating = knockout_round([6, 5, 4, 3, 2, 1], 2, seeds=seeds)
    assert sorted(seating.byes) == [1, 2]
    assert seating.tables == [[4, 5], [3, 6]]
    assert sorted(seating.flags) == [(1, "bye"), (2, "bye")]


def test_round_two_follows_the_bracket_of_round_one_after_upsets():
    seeds = {s: s for s in range(1, 17)}
    # Round one: 16 beat 1 and 9 beat 8; every other favourite won.
    alive = [16, 2, 3, 4, 5, 6, 7, 9]
    seating = knockout_round(alive, 2, seeds=seeds, round_number=2)
    assert seating.tables == [[9, 16], [4, 5], [2, 7], [3, 6]]


def test_a_bracket_that_no_longer_fits_is_reseeded():
    seeds = {s: s for s in range(1, 17)}
    alive = [2, 3, 4, 5, 6, 7, 8]  # 1 withdrew after winning round one
    seating = knockout_round(alive, 2, seeds=seeds, round_number=2)
    assert seating.byes == [2]
    assert sorted(map(sorted, seating.tables)) == [[3, 8], [4, 7], [5, 6]]


def test_eleven_players_play_down_to_one_champion_in_four_rounds():
    rng = random.Random(3)
    seeds = {entrant: entrant for entrant in range(1, 12)}
    alive = list(seeds)
    number = 0
    while len(alive) > 1:
        number += 1
        seating = knockout_round(alive, 2, seeds=seeds, round_number=number)
        results = [dict(zip(rng.sample(table, 2), (1, 2), strict=True)) for table in seating.tables]
        alive = knockout_survivors(results) + seating.byes
        assert number > 1 or len(alive) == 8
    assert number == 4


def test_table_elimination_deals_the_seeds_in_a_snake():
    seeds = {s: s for s in range(1, 13)}
    seating = knockout_round(list(seeds), 4, seeds=seeds)
    assert seating.tables == [[1, 6, 7, 12], [2, 5, 8, 11], [3, 4, 9, 10]]


def test_a_field_that_fits_at_one_table_is_the_final():
    seating = knockout_round([4, 3, 2, 1, 5], 6, seeds={1: 1, 2: 2, 3: 3, 4: 4, 5: 5})
    assert seating.tables == [[1, 2, 3, 4, 5]]


def test_survivors_are_all_but_the_durak_best_places_first():
    tables = [{1: 2, 2: 1, 3: 4, 4: 3}, {5: 1, 6: 3, 7: 2}]
    assert knockout_survivors(tables) == [2, 5, 1, 7, 4]
    assert knockout_survivors(tables, drop=2) == [2, 5, 1]


def test_a_draw_without_a_durak_keeps_both_last_places():
    # Two players went out together and nobody was left holding cards: places 1, 2, 3, 3.
    assert sorted(knockout_survivors([{1: 1, 2: 2, 3: 3, 4: 3}, {5: 1, 6: 2}])) == [1, 2, 3, 4, 5]


def test_the_final_table_leaves_its_winner():
    assert knockout_survivors([{1: 3, 2: 1, 3: 2, 4: 4}]) == [2]


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        knockout_round([1], 2)
    with pytest.raises(ValueError):
        knockout_round([1, 2], 7)
    with pytest.raises(ValueError):
        knockout_survivors([{1: 1, 2: 2}], drop=0)


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 70), st.integers(2, 6), st.integers(0, 1000))
def test_a_knockout_always_ends_with_one_winner(n, table_size, seed):
    rng = random.Random(seed)
    seeds = {entrant: rank for rank, entrant in enumerate(rng.sample(range(1000, 2000), n), start=1)}
    alive = list(seeds)
    for number in range(1, 200):
        seating = knockout_round(alive, table_size, seeds=seeds, round_number=number)
        seated = seating.seated()
        assert sorted(seated + seating.byes) == sorted(alive)
        sizes = [len(table) for table in seating.tables]
        assert min(sizes) >= 2 and max(sizes) - min(sizes) <= 1 and max(sizes) <= max(table_size, 2)
        results = [
            dict(zip(rng.sample(table, len(table)), range(1, len(table) + 1), strict=True)) for table in seating.tables
        ]
        going_on = knockout_survivors(results) + seating.byes
        assert len(going_on) < len(alive)
        alive = going_on
        if len(alive) == 1:
            break
    assert len(alive) == 1
