"""Points by place at a table: the event default, and shared places."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def default_points(table_size: int) -> list[float]:
    """Points for places 1..table_size: ``table_size - 1`` for the winner down to 0 for the durak.

    A table of four scores 3/2/1/0, a table of two 1/0.
    """
    if not isinstance(table_size, int) or table_size < 1:
        raise ValueError(f"table_size must be a positive int, not {table_size!r}")
    return [float(table_size - place) for place in range(1, table_size + 1)]


def points_for_places(
    places: dict[int, int], table_size: int, *, points: Sequence[float] | None = None
) -> dict[int, float]:
    """Points of each entrant at one table from its place (1 = first).

    ``table_size`` is the number of places at that table (normally ``len(places)``; an entrant who is
    missing from ``places`` simply scores nothing here). ``points`` lists the points for places
    1..table_size, by default ``default_points(table_size)``. Entrants who share a place share the
    points of the places they fill together: at a table of four, places ``{a: 1, b: 2, c: 3, d: 3}``
    (a draw, no durak) give ``c`` and ``d`` (1 + 0) / 2 = 0.5 each.
    """
    if points is None:
        points = default_points(table_size)
    if len(points) != table_size:
        raise ValueError(f"points must list {table_size} places, not {len(points)}")
    if len(places) > table_size:
        raise ValueError(f"{len(places)} entrants cannot share a table of {table_size}")
    shared = Counter(places.values())
    result = {}
    for entrant, place in places.items():
        tied = shared[place]
        if not isinstance(place, int) or place < 1 or place + tied - 1 > table_size:
            raise ValueError(f"place {place!r} does not fit a table of {table_size}")
        result[entrant] = sum(points[place - 1 : place - 1 + tied]) / tied
    return result
