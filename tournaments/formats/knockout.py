"""Knockout: a seeded bracket at 2-player tables, table elimination at larger tables."""

from __future__ import annotations

from .seating import Seating, check_entrants, check_table_size, table_sizes


def bracket_order(size: int) -> list[int]:
    """Seeds 1..size in bracket slot order: neighbours meet in round one, and if the favourites
    always win, seed s meets seed ``2**k + 1 - s`` when ``2**k`` remain (1 v 8, 4 v 5, 2 v 7, 3 v 6)."""
    slots = [1]
    while len(slots) < size:
        slots = [seed for top in slots for seed in (top, 2 * len(slots) + 1 - top)]
    return slots


def knockout_round(
    alive: list[int], table_size: int, *, seeds: dict[int, int] | None = None, round_number: int = 1
) -> Seating:
    """One round of a knockout among the ``alive`` entrants.

    Entrants rank by ``seeds`` (1 is the best; without a seed: after the seeded, in ``alive`` order).

    2-player tables: a bracket round in bracket order, the highest seed first at each table. When
    the field is not a power of two, the top seeds get byes so the next round is one. In later rounds
    (``round_number`` > 1) with the original ``seeds``, entrants meet as the bracket of round one
    says (the winner of 1 v 16 meets the winner of 8 v 9); if the survivors do not fit that bracket
    (a withdrawal), they are re-seeded by rank.

    Larger tables: table elimination. Tables balanced by ``table_sizes`` are dealt the ranking in a
    snake, and each table's last place (the durak) drops out: ``knockout_survivors``. When everyone
    fits at one table, that table is the final.
    """
    check_table_size(table_size)
    check_entrants(alive)
    if len(alive) < 2:
        raise ValueError("a knockout round needs at least two entrants")
    if round_number < 1:
        raise ValueError(f"round_number must be at least 1, not {round_number}")
    seeds = seeds or {}
    position = {entrant: i for i, entrant in enumerate(alive)}
    ranked = sorted(alive, key=lambda e: (seeds.get(e) is None, seeds.get(e, 0), position[e]))
    if table_size == 2:
        tables = None
        if round_number > 1 and len(seeds) and all(e in seeds for e in alive):
            tables = _bracket_round(ranked, seeds, round_number)
        if tables is None:
            return _seeded_round(ranked)
        return Seating(tables=tables)

    n = len(ranked)
    sizes = [n] if n <= table_size else table_sizes(n, table_size)
    tables: list[list[int]] = [[] for _ in sizes]
    order = list(range(len(sizes)))
    turn = 0
    dealt = iter(ranked)
    while sum(map(len, tables)) < n:
        for ti in order if turn % 2 == 0 else order[::-1]:
            if len(tables[ti]) < sizes[ti]:
                tables[ti].append(next(dealt))
        turn += 1
    return Seating(tables=tables)


def _seeded_round(ranked: list[int]) -> Seating:
    n = len(ranked)
    size = 1
    while size < n:
        size *= 2
    slots = bracket_order(size)
    tables, byes = [], []
    for k in range(0, size, 2):
        high, low = sorted((slots[k], slots[k + 1]))
        if low > n:
            byes.append(ranked[high - 1])
        else:
            tables.append([ranked[high - 1], ranked[low - 1]])
    return Seating(tables=tables, byes=byes, flags=[(entrant, "bye") for entrant in byes])


def _bracket_round(ranked: list[int], seeds: dict[int, int], round_number: int) -> list[list[int]] | None:
    n = len(ranked)
    if n & (n - 1) or round_number > 20:
        return None
    size = n << (round_number - 1)
    values = [seeds[e] for e in ranked]
    if len(set(values)) != n or not all(isinstance(v, int) and 1 <= v <= size for v in values):
        return None
    slot = {seed: i for i, seed in enumerate(bracket_order(size))}
    matches: dict[int, list[int]] = {}
    for entrant in ranked:
        matches.setdefault(slot[seeds[entrant]] >> round_number, []).append(entrant)
    if any(len(match) != 2 for match in matches.values()):
        return None
    return [matches[k] for k in sorted(matches)]


def knockout_survivors(table_results: list[dict[int, int]], drop: int = 1) -> list[int]:
    """Who goes on to the next knockout round, best places first.

    ``table_results`` holds each table's places (entrant: place, 1 = first; entrants sharing a place
    have the same number). At every table all but the last ``drop`` places go on: an entrant goes on
    when its place is at most ``len(table) - drop`` (at least the winners stay), so a draw for the last
    places (no durak) keeps everyone. A single table is the final: only its winner(s) come back, and
    the knockout is over. Add the round's byes to the result yourself.
    """
    if drop < 1:
        raise ValueError(f"drop must be at least 1, not {drop}")
    if len(table_results) == 1:
        (final,) = table_results
        return [entrant for entrant, place in final.items() if place == 1]
    going_on = []
    for ti, places in enumerate(table_results):
        cut = max(1, len(places) - drop)
        going_on.extend((place, ti, entrant) for entrant, place in places.items() if place <= cut)
    return [entrant for _, _, entrant in sorted(going_on)]
