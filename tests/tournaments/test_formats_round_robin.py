"""Round robin (issue #9, formats): everyone meets everyone, in as few rounds as the tables allow."""

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import FLAGS, count_repeats, round_robin_schedule, table_sizes
from tournaments.formats.round_robin import cached_schedule


def meetings(schedule):
    return Counter(
        frozenset(pair) for seating in schedule for table in seating.tables for pair in combinations(table, 2)
    )


def test_eight_at_two_player_tables_meet_each_other_exactly_once_in_seven_rounds():
    entrants = [11, 12, 13, 14, 15, 16, 17, 18]
    schedule = round_robin_schedule(entrants, 2)
    assert len(schedule) == 7
    for seating in schedule:
        assert sorted(seating.seated()) == entrants and seating.byes == [] and seating.repeats == 0
    assert set(meetings(schedule).values()) == {1}
    assert len(meetings(schedule)) == 28


def test_an_odd_field_at_two_player_tables_gives_everyone_one_bye():
    entrants = list(range(1, 8))
    schedule = round_robin_schedule(entrants, 2)
    assert len(schedule) == 7
    byes = [bye for seating in schedule for bye in seating.byes]
    assert sorted(byes) == entrants
    for seating in schedule:
        assert len(seating.byes) == 1 and seating.flags == [(seating.byes[0], "bye")]
        assert sorted(seating.seated() + seating.byes) == entrants
    assert len(meetings(schedule)) == 21 and set(meetings(schedule).values()) == {1}


def test_eight_pairs_play_a_2v2_round_robin_as_two_entrants_a_table():
    # A pair is one entrant at a "table_size 2" pairing: two pairs at each table of four players.
    pairs = [101, 102, 103, 104, 105, 106, 107, 108]
    schedule = round_robin_schedule(pairs, 2)
    assert len(schedule) == 7
    assert all(len(table) == 2 for seating in schedule for table in seating.tables)
    assert len(meetings(schedule)) == 28


def test_the_circle_method_keeps_the_given_order_as_berger_numbers():
    schedule = round_robin_schedule([1, 2, 3, 4], 2)
    assert [sorted(map(sorted, seating.tables)) for seating in schedule] == [
        [[1, 4], [2, 3]],
        [[1, 3], [2, 4]],
        [[1, 2], [3, 4]],
    ]


def test_nine_at_tables_of_three_meet_each_other_exactly_once_in_four_rounds():
    schedule = round_robin_schedule(list(range(1, 10)), 3)
    assert len(schedule) == 4  # 8 others, 2 new at each table of three
    assert len(meetings(schedule)) == 36 and set(meetings(schedule).values()) == {1}
    assert all(seating.repeats == 0 for seating in schedule)


@pytest.mark.parametrize(("n", "table_size"), [(16, 4), (12, 4), (10, 5), (13, 6), (7, 3)])
def test_larger_tables_meet_every_pair_at_least_once(n, table_size):
    entrants = list(range(1, n + 1))
    schedule = round_robin_schedule(entrants, table_size)
    assert len(meetings(schedule)) == n * (n - 1) // 2
    # At least the rounds each entrant needs to meet n - 1 others.
    sizes = table_sizes(n, table_size)
    assert len(schedule) >= -(-(n - 1) // (sizes[0] - 1))
    for number, seating in enumerate(schedule):
        assert sorted(seating.seated()) == entrants
        assert sorted(map(len, seating.tables), reverse=True) == sizes
        assert seating.repeats == count_repeats(seating.tables, [s.tables for s in schedule[:number]])


def test_the_schedule_is_fresh_lists_every_call():
    first = round_robin_schedule([1, 2, 3, 4, 5], 3)
    first[0].tables[0].append(99)
    assert 99 not in round_robin_schedule([1, 2, 3, 4, 5], 3)[0].tables[0]


def test_a_field_that_fits_at_one_table_plays_one_round():
    assert [s.tables for s in round_robin_schedule([3, 1, 2], 4)] == [[[3, 1, 2]]]
    assert round_robin_schedule([5], 4) == []
    assert round_robin_schedule([], 2) == []


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        round_robin_schedule([1, 2, 3], 1)
    with pytest.raises(ValueError):
        round_robin_schedule([1, 1, 2], 3)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 13), st.integers(2, 6), st.integers(0, 100))
def test_round_robin_properties(n, table_size, seed):
    entrants = [7 * i + 3 for i in range(n)]
    schedule = round_robin_schedule(entrants, table_size, seed=seed)
    cached_schedule.cache_clear()  # built again from scratch: the same schedule
    assert schedule == round_robin_schedule(list(entrants), table_size, seed=seed)
    expected_sizes = [n] if n <= table_size else table_sizes(n, table_size)
    for number, seating in enumerate(schedule):
        assert Counter(seating.seated() + seating.byes) == Counter(entrants)
        assert sorted(map(len, seating.tables), reverse=True) == expected_sizes
        assert seating.repeats == count_repeats(seating.tables, [s.tables for s in schedule[:number]])
        assert all(code in FLAGS for _, code in seating.flags)
    assert len(meetings(schedule)) == n * (n - 1) // 2
