"""The pure seating with groups apart (tournaments.formats.apart), which a club battle's Swiss
rounds and arena use: no two players of one club at a table while the clubs' sizes allow it (a
club of s players needs s <= the number of tables), the fewest such pairs otherwise, and over
the rounds no repeated table-mates where the field allows."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import (
    FreePlayer,
    arena_tables,
    fewest_group_pairs,
    group_pairs,
    seat_apart,
    swiss_round,
    table_sizes,
)
from tournaments.formats.seating import count_repeats


@st.composite
def fields(draw, *, fitting: bool):
    """Clubs of uneven sizes and a table size; `fitting`: no club larger than the number of tables."""
    table_size = draw(st.integers(2, 6))
    players = draw(st.integers(2, 60))
    if table_size == 2 and players % 2:
        players += 1
    tables = len(table_sizes(players, table_size))
    most = tables if fitting else players
    sizes = []
    left = players
    while left:
        size = draw(st.integers(1, max(1, min(left, most))))
        sizes.append(size)
        left -= size
    club = {}
    for number, size in enumerate(sizes):
        for _ in range(size):
            club[len(club)] = number
    order = draw(st.permutations(list(club)))
    return list(order), table_size, club, sizes


def seated_everyone(tables, order, sizes) -> bool:
    return sorted(e for t in tables for e in t) == sorted(order) and [len(t) for t in tables] == sizes


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(fields(fitting=True), st.randoms(use_true_random=False))
def test_clubmates_never_share_a_table_when_the_clubs_sizes_allow(field, rng):
    order, table_size, club, _sizes = field
    sizes = table_sizes(len(order), table_size)
    score = {e: float(rng.randint(0, 5)) for e in order}
    tables = seat_apart(order, sizes, club, {}, score)
    assert seated_everyone(tables, order, sizes)
    assert group_pairs(tables, club) == 0


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(fields(fitting=False), st.randoms(use_true_random=False))
def test_clubmates_sit_together_as_rarely_as_the_tables_allow(field, rng):
    order, table_size, club, club_sizes = field
    sizes = table_sizes(len(order), table_size)
    score = {e: float(rng.randint(0, 5)) for e in order}
    tables = seat_apart(order, sizes, club, {}, score)
    assert seated_everyone(tables, order, sizes)
    assert group_pairs(tables, club) == fewest_group_pairs(club_sizes, len(sizes))


def test_the_fewest_pairs_of_a_club_larger_than_the_tables():
    # Seven players of one club at three tables: 3 + 2 + 2, so 3 + 1 + 1 pairs.
    assert fewest_group_pairs([7], 3) == 5
    assert fewest_group_pairs([3, 3], 3) == 0


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(fields(fitting=True), st.integers(0, 1000))
def test_swiss_rounds_with_clubs_apart_seat_no_clubmates_together(field, seed):
    order, table_size, club, _sizes = field
    rng = random.Random(seed)
    history = []
    scores = dict.fromkeys(order, 0.0)
    for number in range(1, 4):
        seating = swiss_round(order, scores, history, table_size, seed=number, apart=club)
        assert group_pairs(seating.tables, club) == 0
        history.append(seating.tables)
        for table in seating.tables:
            for place, e in enumerate(rng.sample(table, len(table))):
                scores[e] += len(table) - 1 - place


def test_opponents_are_not_repeated_while_the_field_allows():
    # Four clubs of four at tables of four: round two can meet three new players everywhere.
    club = {e: e // 4 for e in range(16)}
    order = list(range(16))
    first = seat_apart(order, [4, 4, 4, 4], club, {}, {})
    met = {}
    for table in first:
        for a in table:
            for b in table:
                if a != b:
                    met.setdefault(a, {})[b] = 1
    second = seat_apart(order, [4, 4, 4, 4], club, met, {})
    assert group_pairs(second, club) == 0
    assert count_repeats(second, [first]) == 0


def test_the_arena_keeps_clubmates_apart_before_points():
    # Two clubs of three, all free: points alone would seat the club of leaders together.
    club = {1: "a", 2: "a", 3: "a", 4: "b", 5: "b", 6: "b"}
    free = [FreePlayer(entrant=e, points=10.0 if club[e] == "a" else 0.0, free_since=0.0) for e in club]
    tables = arena_tables(free, 2, now=10.0, apart=club)
    assert sorted(len(t) for t in tables) == [2, 2, 2]
    assert group_pairs(tables, club) == 0
    plain = arena_tables(free, 2, now=10.0)
    assert group_pairs(plain, club) > 0


def test_the_same_arguments_give_the_same_tables():
    rng = random.Random(3)
    club = {e: rng.randrange(7) for e in range(40)}
    order = list(range(40))
    score = {e: float(rng.randint(0, 9)) for e in order}
    sizes = table_sizes(40, 4)
    assert seat_apart(order, sizes, club, {}, score) == seat_apart(order, sizes, club, {}, score)
