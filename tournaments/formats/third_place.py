"""A knockout's third-place match, an option of the knockout at tables of 2.

Without it the two semi-final losers share third place. With it they play each other, alongside
the final (neither is in the final, so nobody plays two matches at once): its winner is third and
its loser fourth. Champion and runner-up are as before; everyone out earlier keeps his place.
A semi-final round with a bye (a withdrawal left three in the bracket) has a single loser, who is
third alone: there is no third-place match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def is_semi_final(alive: int) -> bool:
    """Whether a knockout round at tables of 2 among ``alive`` entrants is the semi-final round: four
    left (two tables), or three (one table and a bye). The round after it is the final."""
    return alive in (3, 4)


def semi_final_losers(tables: Sequence[Sequence[int]], results: Sequence[Mapping[int, int]]) -> list[int]:
    """The losers of a knockout's semi-final round at tables of 2, table by table.

    ``tables``: the round's tables (at most two, each of two entrants; a bye sits at no table).
    ``results``: each table's places (entrant: place, 1 = first), in the order of ``tables``, as
    ``knockout_survivors`` reads them. A table without a decision (both first) is refused: a knockout
    decides every table before it goes on.
    """
    if len(tables) != len(results):
        raise ValueError("every semi-final table needs its result")
    if not 1 <= len(tables) <= 2:
        raise ValueError(f"a semi-final round has one or two tables, not {len(tables)}")
    losers = []
    for table, places in zip(tables, results, strict=True):
        if len(table) != 2:
            raise ValueError("a third-place match follows semi-finals at tables of 2")
        if set(places) != set(table):
            raise ValueError(f"the result of table {list(table)} names other entrants")
        (winner,) = _winners(places)
        losers.extend(entrant for entrant in table if entrant != winner)
    return losers


def _winners(places: Mapping[int, int]) -> list[int]:
    best = min(places.values())
    winners = [entrant for entrant, place in places.items() if place == best]
    if len(winners) != 1:
        raise ValueError(f"a semi-final needs one winner, not {len(winners)}")
    return winners


def third_place_match(tables: Sequence[Sequence[int]], results: Sequence[Mapping[int, int]]) -> list[int] | None:
    """The third-place match's table: the two semi-final losers, the loser of the top semi-final first
    (he lost to the better half of the bracket). ``None`` when the semi-final round had a single table
    (the other finalist had a bye): its loser is third alone."""
    losers = semi_final_losers(tables, results)
    return losers if len(losers) == 2 else None


def third_place_order(order: Sequence[Sequence[int]], result: Mapping[int, int]) -> list[list[int]]:
    """The knockout's final order with the third-place match played.

    ``order``: the final order as groups sharing a place, best first, in which the two semi-final
    losers share third place: ``[[champion], [runner-up], [a, b], ...]``. ``result``: the third-place
    match's places (``{a: 1, b: 2}``). Returns ``[[champion], [runner-up], [winner], [loser], ...]``;
    every other group is unchanged.
    """
    order = [list(group) for group in order]
    if len(order) < 3 or len(order[0]) != 1 or len(order[1]) != 1:
        raise ValueError("the order must start with the champion and the runner-up, each alone")
    if set(result) != set(order[2]) or len(result) != 2:
        raise ValueError("the third-place match is played by the two entrants who share third place")
    (winner,) = _winners(result)
    (loser,) = (entrant for entrant in result if entrant != winner)
    return [*order[:2], [winner], [loser], *order[3:]]
