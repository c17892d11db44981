"""Scoring and standings: pure functions, no Django, no database.

Scoring (stated on the event page):
- points by place at the table from the event's points table (default:
  `formats.default_points(table_size)`: 3/2/1/0 at four; a smaller table of
  a balanced round keeps the top places' points and the last place's: 3/2/0
  at three); entrants who share
  a place share the points of the places they span, averaged; the durak
  scores nothing;
- in pair events the pair's place counts (the team of the durak is 2nd);
- a bye scores BYE_SHARE of the points table: its average, rounded to a half
  point (at tables of four with 3/2/1/0 that is 1.5, at two with 1/0 it is 0.5);
- a late entrant starts with 0 points for the rounds he missed.

Standings order: points, then Buchholz (the sum of the current points of every
opponent met, one count per opponent per round), then fewer durak finishes,
then rating, then registration order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import formats


def game_points(places: dict, table_size: int, table: list[float], durak=None) -> dict:
    """{entrant: place} -> {entrant: points}: shared places share (formats.points_for_places); the durak gets 0."""
    points = {key: float(value) for key, value in formats.points_for_places(places, table_size, points=table).items()}
    if durak is not None and durak in points:
        points[durak] = 0.0
    return points


def bye_points(table: list[float]) -> float:
    """The fixed score of a bye: the average of the points table, rounded to a half point."""
    if not table:
        return 0.0
    return round(2 * sum(table) / len(table)) / 2


def pair_places(seats: list[dict]) -> dict[int, int]:
    """Team places at a 2v2 table from the seats' records.

    `seats`: dicts with team, is_loser, abandoned. A team with the durak (or a
    seat that abandoned) is 2nd; both teams 1st in a draw; both 2nd if both lost.
    """
    lost = {}
    for seat in seats:
        lost[seat["team"]] = lost.get(seat["team"], False) or bool(seat["is_loser"] or seat["abandoned"])
    if len(set(lost.values())) == 1:
        place = 2 if next(iter(lost.values())) else 1
        return dict.fromkeys(lost, place)
    return {team: 2 if has_lost else 1 for team, has_lost in lost.items()}


@dataclass
class Line:
    entrant: int
    points: float = 0.0
    buchholz: float = 0.0
    duraks: int = 0
    rating: float = 0.0
    order: int = 0
    games: int = 0
    byes: int = 0
    rank: int = 0
    by_round: dict = field(default_factory=dict)  # round -> points
    opponents: dict = field(default_factory=dict)  # round -> [entrant, ...]


def compute(entrants: list[int], results: list[dict], ratings: dict | None = None) -> list[Line]:
    """Standings from results.

    entrants: ids in registration order. results: dicts with entrant, round,
    table (any key naming the table in its round, None for a bye), points, durak.
    """
    ratings = ratings or {}
    lines = {e: Line(entrant=e, order=i, rating=float(ratings.get(e) or 0)) for i, e in enumerate(entrants)}
    tables: dict[tuple, set] = {}
    for row in results:
        line = lines.get(row["entrant"])
        if line is None:
            continue
        line.points += row["points"]
        line.by_round[row["round"]] = line.by_round.get(row["round"], 0.0) + row["points"]
        if row.get("table") is None:
            line.byes += 1
            continue
        line.games += 1
        line.duraks += 1 if row.get("durak") else 0
        tables.setdefault((row["round"], row["table"]), set()).add(row["entrant"])
    for (round_number, _), members in tables.items():
        for entrant in members:
            line = lines.get(entrant)
            if line is not None:
                line.opponents[round_number] = sorted(members - {entrant})
    for line in lines.values():
        line.buchholz = sum(lines[o].points for opponents in line.opponents.values() for o in opponents if o in lines)
    ordered = sorted(lines.values(), key=lambda x: (-x.points, -x.buchholz, x.duraks, -x.rating, x.order))
    for rank, line in enumerate(ordered, start=1):
        line.rank = rank
    return ordered
