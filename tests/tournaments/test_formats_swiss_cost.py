"""Swiss seating optimises the whole cost (issue #15, point 6): fewest repeats first, then the score
spread within tables, also once nothing repeats; compared with brute force on small fields."""

import random
from itertools import combinations

import pytest

from tournaments.formats import swiss_round, table_sizes
from tournaments.formats.search import Seater, seat
from tournaments.formats.seating import meetings


def every_seating(entrants, sizes):
    """All ways to seat ``entrants`` at tables of ``sizes`` (brute force, small fields only)."""
    if not entrants:
        yield []
        return
    first, rest = entrants[0], entrants[1:]
    for size in sorted(set(sizes), reverse=True):
        left = list(sizes)
        left.remove(size)
        for mates in combinations(rest, size - 1):
            remaining = [e for e in rest if e not in mates]
            for tail in every_seating(remaining, left):
                yield [[first, *mates], *tail]


def spread(tables, scores):
    return sum(max(scores[e] for e in t) - min(scores[e] for e in t) for t in tables)


def played(n, table_size, rounds, seed):
    """``rounds`` Swiss rounds with random places (points by place, the durak 0)."""
    rng = random.Random(seed)
    ids = list(range(1, n + 1))
    scores = dict.fromkeys(ids, 0.0)
    history = []
    for number in range(rounds):
        seating = swiss_round(ids, scores, history, table_size, seed=number)
        history.append(seating.tables)
        for table in seating.tables:
            for place, entrant in enumerate(rng.sample(table, len(table))):
                scores[entrant] += 0 if place == len(table) - 1 else table_size - 1 - place
    return ids, scores, history


def test_the_leader_no_longer_sits_with_two_zero_point_players():
    # What was seen: once nothing repeats the greedy fill stood, and the leader (6 points here) sat
    # with both 0-point players (spread 6 at that table, 10 in all) although a seating with less
    # spread and no repeat exists: 8 in all, found by brute force over the 15,400 seatings.
    scores = {1: 5, 2: 0, 3: 6, 4: 3, 5: 3, 6: 5, 7: 5, 8: 0, 9: 5, 10: 2, 11: 2, 12: 4}
    history = [
        [[1, 9, 8], [10, 7, 2], [3, 6, 11], [4, 12, 5]],
        [[4, 7, 3], [10, 9, 6], [1, 2, 12], [5, 11, 8]],
    ]
    seating = swiss_round(list(range(1, 13)), scores, history, 3, seed=9)
    assert seating.repeats == 0
    (leader_table,) = [t for t in seating.tables if 3 in t]
    assert sorted(scores[e] for e in leader_table) != [0, 0, 6]
    met = meetings(history)
    best = min(spread(t, scores) for t in every_seating(list(range(1, 13)), [3, 3, 3, 3]) if not _repeats(t, met))
    assert best == 8
    assert spread(seating.tables, scores) == 8


def _repeats(tables, met):
    return sum(1 for t in tables for a, b in combinations(t, 2) if b in met.get(a, {}))


@pytest.mark.parametrize(("n", "table_size"), [(8, 4), (6, 3), (9, 3), (10, 2), (12, 4), (12, 3)])
def test_the_search_finds_the_brute_force_optimum_on_small_fields(n, table_size):
    for seed in range(30):
        ids, scores, history = played(n, table_size, 1 + seed % 3, seed)
        met = meetings(history)
        sizes = table_sizes(n, table_size)
        order = sorted(ids, key=lambda e: -scores[e])
        seater = Seater(met, scores, order)
        optimum = min(seater.evaluate(t) for t in every_seating(order, sizes))
        found = seater.evaluate(seat(order, sizes, met, scores, whole_cost=True))
        assert found[:2] == optimum[:2], (seed, found, optimum)
        assert found[2] == pytest.approx(optimum[2]), (seed, found, optimum)


@pytest.mark.parametrize(("n", "table_size"), [(8, 4), (6, 3)])
def test_a_swiss_round_costs_the_brute_force_optimum(n, table_size):
    # (repeats, squared earlier meetings, total spread) of the seating equals the least of all seatings.
    for seed in range(15):
        ids, scores, history = played(n, table_size, 1 + seed % 3, seed)
        met = meetings(history)
        seater = Seater(met, scores, ids)
        optimum = min(seater.evaluate(t) for t in every_seating(ids, table_sizes(n, table_size)))
        found = seater.evaluate(swiss_round(ids, scores, history, table_size, seed=seed).tables)
        assert found[:2] == optimum[:2] and found[2] == pytest.approx(optimum[2]), (seed, found, optimum)


def test_on_a_bigger_field_no_single_swap_between_tables_helps():
    ids, scores, history = played(40, 4, 3, 7)
    seating = swiss_round(ids, scores, history, 4, seed=3)
    seater = Seater(meetings(history), scores, ids)
    tables = [list(t) for t in seating.tables]
    total = seater.total(tables)
    for ti, tj in combinations(range(len(tables)), 2):
        for ai in range(len(tables[ti])):
            for ci in range(len(tables[tj])):
                swapped = [list(t) for t in tables]
                swapped[ti][ai], swapped[tj][ci] = tables[tj][ci], tables[ti][ai]
                assert seater.total(swapped) >= total - 1e-9
