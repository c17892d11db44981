"""Round robin: everyone meets everyone, in as few rounds as the tables allow."""

from __future__ import annotations

import random
from functools import lru_cache

from .search import Seater, seat
from .seating import Seating, add_round, check_entrants, check_table_size, repeat_flags, repeat_pairs, table_sizes

#: Fresh attempts at a schedule of a given length before trying one round more.
ATTEMPTS = 6
#: Exact-search steps per round (the search only runs while a round without repeats may exist).
BUDGET = 4_000


def round_robin_schedule(entrants: list[int], table_size: int, *, seed: int = 0) -> list[Seating]:
    """Every round of a round robin among ``entrants``.

    At 2-player tables the circle (Berger) method: ``n - 1`` rounds for an even field, ``n`` for an
    odd one, where each round one entrant has the bye; every pair meets exactly once. The entrants'
    order gives their Berger numbers (shuffle it first for a drawn schedule); ``seed`` is unused there.

    At larger tables (balanced by ``table_sizes``) the fewest rounds in which every pair meets at
    least once, when a search finds them: it starts from the lower bound (each entrant must meet
    ``n - 1`` others, each round seats a fixed number of pairs) and adds a round when a few attempts
    fail. Pairs who must meet again are spread so nobody meets the same entrant more often than
    needed. ``Seating.repeats`` counts pairs who met in an earlier round of the schedule.
    """
    check_table_size(table_size)
    check_entrants(entrants)
    # The event rebuilds its schedule every round: remember the last few (fresh lists every call).
    return [
        Seating(tables=[list(t) for t in tables], byes=list(byes), repeats=repeats, flags=list(flags))
        for tables, byes, repeats, flags in cached_schedule(tuple(entrants), table_size, seed)
    ]


@lru_cache(maxsize=32)
def cached_schedule(entrants: tuple[int, ...], table_size: int, seed: int) -> tuple:
    """The schedule as nested tuples, remembered (``cached_schedule.cache_clear()`` forgets)."""
    schedule = _build(list(entrants), table_size, seed)
    return tuple((tuple(map(tuple, s.tables)), tuple(s.byes), s.repeats, tuple(s.flags)) for s in schedule)


def _build(entrants: list[int], table_size: int, seed: int) -> list[Seating]:
    n = len(entrants)
    if n < 2:
        return []
    if table_size == 2:
        return _circle(list(entrants))
    if n <= table_size:
        return [Seating(tables=[list(entrants)])]

    sizes = table_sizes(n, table_size)
    all_pairs = n * (n - 1) // 2
    per_round = sum(size * (size - 1) // 2 for size in sizes)
    rounds = max(-(-(n - 1) // (sizes[0] - 1)), -(-all_pairs // per_round))
    rng = random.Random(seed)
    best = None
    while True:
        # Pairs beyond the first meeting of each: some pair meets at least this often.
        fewest_most = -(-rounds * per_round // all_pairs)
        for _ in range(ATTEMPTS):
            schedule, met = _attempt(list(entrants), sizes, rounds, rng, all_pairs)
            covered = sum(len(mates) for mates in met.values()) // 2
            counts = [times for mates in met.values() for times in mates.values()]
            key = (covered < all_pairs, max(counts), sum(t * t for t in counts))
            if best is None or key < best[0]:
                best = (key, schedule)
            if covered == all_pairs and max(counts) <= fewest_most:
                return schedule
        if not best[0][0] or rounds >= 2 * n:
            return best[1]
        rounds += 1


def _attempt(entrants, sizes, rounds, rng, all_pairs):
    met: dict[int, dict[int, int]] = {}
    score = dict.fromkeys(entrants, 0.0)
    per_round = sum(size * (size - 1) // 2 for size in sizes)
    schedule = []
    for _ in range(rounds):
        rng.shuffle(entrants)
        covered = sum(len(mates) for mates in met.values()) // 2
        # Only look for a round without repeats while there are enough new pairs left for one.
        budget = BUDGET if all_pairs - covered >= per_round else 0
        tables = seat(entrants, sizes, met, score, windows=(len(entrants),), reach=len(sizes), budget=budget)
        if not budget:
            Seater(met, score, entrants).improve(tables, len(tables), passes=40)
        pairs = repeat_pairs(tables, met)
        schedule.append(Seating(tables=[list(t) for t in tables], repeats=len(pairs), flags=repeat_flags(pairs)))
        add_round(met, tables)
    return schedule, met


def _circle(players: list[int | None]) -> list[Seating]:
    if len(players) % 2:
        players.append(None)
    m = len(players)
    schedule = []
    for number in range(m - 1):
        tables, byes = [], []
        for i in range(m // 2):
            a, b = players[i], players[m - 1 - i]
            if i == 0 and number % 2:
                a, b = b, a  # the fixed entrant changes sides every round
            if a is None or b is None:
                byes.append(b if a is None else a)
            else:
                tables.append([a, b])
        schedule.append(Seating(tables=tables, byes=byes, flags=[(bye, "bye") for bye in byes]))
        players = [players[0], players[-1], *players[1:-1]]
    return schedule
