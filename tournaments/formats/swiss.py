"""Swiss seating at tables of 2 to 6: close scores together, fewest repeated table-mates, balanced tables."""

from __future__ import annotations

import random
from itertools import groupby

from .apart import seat_apart
from .search import ACCEPT_STEPS, CHEAPEST_UPTO, Seater, seat
from .seating import (
    Seating,
    check_entrants,
    check_table_size,
    meetings,
    repeat_flags,
    repeat_pairs,
    score_flags,
    table_sizes,
)

#: Fields up to this size look one round ahead: among seatings without repeats they take one after
#: which the next round can be seated without repeats too (16 entrants at tables of four: a third
#: round chosen blindly left no fourth round without repeats after 82 of 100 random result sequences).
LOOKAHEAD_UPTO = 48
LOOKAHEAD_BUDGET = 40_000

#: Fields of up to ``CHEAPEST_UPTO`` look ahead exactly: seatings without repeats, cheapest first, each
#: asked whether a next round without repeats exists (at most ``SMALL_LOOKS`` of them, each search
#: at most ``SMALL_ACCEPT_STEPS`` steps).
SMALL_LOOKS = 200
SMALL_ACCEPT_STEPS = 20_000

#: How many bye candidates are tried (best first) when the first leaves a repeat.
BYE_CANDIDATES = 3


def swiss_round(
    entrants: list[int],
    scores: dict[int, float],
    history: list[list[list[int]]],
    table_size: int,
    *,
    ratings: dict[int, float] | None = None,
    byes_had: dict[int, int] | None = None,
    seed: int = 0,
    apart: dict[int, object] | None = None,
) -> Seating:
    """Seat one Swiss round.

    Entrants are ranked by score, then rating (entrants without one after those with one), then
    their order in ``entrants``; a missing score counts as 0. Tables are balanced (``table_sizes``),
    filled from the top of the ranking, and no two entrants who met in ``history`` sit together
    unless it cannot be avoided; then as few pairs as possible, preferring pairs who met fewer times.
    Fields of up to ``LOOKAHEAD_UPTO`` entrants also prefer a seating after which the next round can
    be seated without repeats. Large fields are fast (1,024 entrants: well under a second).
    At 2-player tables each score group is folded (its top half meets its bottom half, the Dutch
    convention) and the lowest of an odd group floats down. Round one (no history, equal scores) at
    larger tables deals the ranking in a snake, so every table gets a fair mix of ratings.

    A left-over entrant at 2-player tables gets the bye: the fewest earlier byes (``byes_had``),
    then the lowest score, then the lowest rating, then the latest in the ranking.

    Seat order within a table is drawn with ``seed`` (in Durak each player attacks the next), and the
    same arguments give the same seating. Flags: ``bye``, ``bye_again``, ``repeat``, ``pulled_up``,
    ``pulled_down`` (see ``FLAGS``); the top table comes first.

    ``apart`` (entrant -> group, e.g. his club in a club battle): entrants of one group sit apart
    while the tables allow, as few together as possible otherwise (``apart.seat_apart``); that
    comes before repeats and scores.
    """
    check_table_size(table_size)
    check_entrants(entrants)
    rng = random.Random(seed)
    position = {entrant: i for i, entrant in enumerate(entrants)}
    score = {entrant: float(scores.get(entrant, 0.0)) for entrant in entrants}
    ratings = ratings or {}
    byes_had = byes_had or {}

    def rank_key(entrant: int):
        rating = ratings.get(entrant)
        return (-score[entrant], rating is None, -(rating or 0.0), position[entrant])

    ranking = sorted(entrants, key=rank_key)
    met = meetings(history)
    sizes = table_sizes(len(entrants), table_size)
    round_one = not history and len(set(score.values())) <= 1

    if sum(sizes) == len(entrants):
        options = [None]
    else:
        rank = {entrant: i for i, entrant in enumerate(ranking)}
        options = sorted(entrants, key=lambda e: (byes_had.get(e, 0), -rank[e]))[:BYE_CANDIDATES]

    best = None
    for bye in options:
        order = [entrant for entrant in ranking if entrant != bye]
        if table_size == 2:
            order = _folded(order, score)
        if apart:
            tables = seat_apart(order, sizes, apart, met, score)
        elif round_one and table_size > 2:
            tables = _snake(order, sizes)
        else:
            tables = seat(order, sizes, met, score, whole_cost=True)
            if history and len(order) <= LOOKAHEAD_UPTO and not repeat_pairs(tables, met):
                tables = _looking_ahead(tables, order, sizes, met, score)
        repeats = len(repeat_pairs(tables, met))
        if best is None or repeats < best[0]:
            best = (repeats, bye, tables)
        if not repeats:
            break
    _, bye, tables = best

    tables.sort(key=lambda table: (-max(score[e] for e in table), -sum(score[e] for e in table) / len(table)))
    for table in tables:
        rng.shuffle(table)
    pairs = repeat_pairs(tables, met)
    flags = []
    byes = []
    if bye is not None:
        byes.append(bye)
        flags.append((bye, "bye_again" if byes_had.get(bye, 0) else "bye"))
    flags += score_flags(tables, score) + repeat_flags(pairs)
    return Seating(tables=tables, byes=byes, repeats=len(pairs), flags=flags)


def _looking_ahead(tables, order, sizes, met, score):
    seater = Seater(met, score, order)
    small = len(order) <= CHEAPEST_UPTO

    def next_round_possible(candidate: list[list[int]]) -> bool:
        ahead = seater.with_round(candidate)
        quick = ahead.greedy(order, sizes, len(order))
        if ahead.evaluate(quick)[0]:
            ahead.improve(quick, len(quick))
        if not ahead.evaluate(quick)[0]:
            return True
        return ahead.exact(order, sizes, SMALL_ACCEPT_STEPS if small else ACCEPT_STEPS) is not None

    if next_round_possible(tables):
        return tables
    if small:
        # Small fields: the cheapest of all seatings without repeats that leaves a next round.
        for tried, candidate in enumerate(seater.clean_seatings(order, sizes)):
            if tried >= SMALL_LOOKS:
                break
            if next_round_possible(candidate):
                return candidate
    found = seater.exact(order, sizes, LOOKAHEAD_BUDGET, accept=next_round_possible)
    if found is None:
        return tables
    # The first seating that leaves a next round ignores the score spread: polish it, and keep the
    # polished one only while it still leaves a next round without repeats.
    polished = [list(table) for table in found]
    seater.polish(polished, len(polished))
    if seater.total(polished) < seater.total(found) and next_round_possible(polished):
        return polished
    return found


def _folded(order: list[int], score: dict[int, float]) -> list[int]:
    """Each score group's top half interleaved with its bottom half: pairing neighbours then pairs
    the group's first with the first of its lower half, and an odd group's lowest comes last."""
    folded = []
    for _, group in groupby(order, key=score.__getitem__):
        group = list(group)
        half = len(group) // 2
        top, bottom = group[:half], group[half:]
        for i, entrant in enumerate(bottom):
            if i < half:
                folded.append(top[i])
            folded.append(entrant)
    return folded


def _snake(order: list[int], sizes: list[int]) -> list[list[int]]:
    """Deal the ranking to the tables 1, 2, ..., k, k, ..., 2, 1, ... skipping tables that are full."""
    tables: list[list[int]] = [[] for _ in sizes]
    forward = list(range(len(sizes)))
    turn = 0
    dealt = iter(order)
    while sum(map(len, tables)) < len(order):
        for ti in forward if turn % 2 == 0 else forward[::-1]:
            if len(tables[ti]) < sizes[ti]:
                tables[ti].append(next(dealt))
        turn += 1
    return tables
