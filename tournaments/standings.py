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
  in a knockout a bye scores 0 and goes through to the next round;
- a late entrant starts with 0 points for the rounds he missed;
- unequal games (UNEQUAL_GAMES_RULE): when a round's time limit left its tables
  with unequal numbers of games, each entrant's points of that round are his
  points per game at his table times the games of the round's fullest table
  (a table that played 1 game of 3 counts its game three times, not a third).

Standings order: first the standing group (entrants in play, then entrants who
did not check in, then withdrawn, then disqualified); a knockout then ranks by
the round reached (still in, or out later, ranks higher: the winner first);
then points; then the event's tie-breaks in order, each a named metric of
METRICS (the format's `default_tiebreaks`, tournaments.event_formats, unless the event orders its own);
finally by lot: a fixed draw per event (LOT_RULE), never registration order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from . import formats, registry


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


UNEQUAL_GAMES_RULE = "points per game at the table times the games of the round's fullest table"
LOT_RULE = "a fixed draw per event: the entrants ordered by a hash of the event and the entrant"

#: Standing groups, best first: in play, never checked in (check-in was required), withdrawn, disqualified.
GROUPS = ("active", "absent", "withdrawn", "disqualified")


@dataclass
class Line:
    entrant: int
    points: float = 0.0
    buchholz: float = 0.0  # average points of the opponents met, per opponent met
    median_buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    head_to_head: int = 0  # tied rivals finished above where they met (head_to_head_counts)
    duraks: int = 0
    wins: int = 0  # games won: first place alone at the table
    rating: float | None = None  # shown only (None: provisional or unrated); the order reads the seed
    seed: int | None = None
    order: int = 0
    games: int = 0
    byes: int = 0
    rank: int = 0
    group: str = "active"
    reached: int | None = None  # knockout: the round an entrant went out in (None: still in, or the winner)
    lot: str = ""
    by_round: dict = field(default_factory=dict)  # round -> points
    opponents: dict = field(default_factory=dict)  # round -> [entrant, ...]
    averaged_rounds: list = field(default_factory=list)  # rounds whose points UNEQUAL_GAMES_RULE scaled


@dataclass(frozen=True)
class Metric:
    """One tie-break: ``key(line)`` is sorted ascending (the better first)."""

    name: str
    description: str
    key: Callable[[Line], float]


METRICS: dict[str, Metric] = {
    metric.name: metric
    for metric in (
        Metric("buchholz", "Buchholz: the average points of the opponents met, per opponent", lambda x: -x.buchholz),
        Metric(
            "median_buchholz",
            "median Buchholz: the same average without the best and the worst opponent (three or more met)",
            lambda x: -x.median_buchholz,
        ),
        Metric(
            "sonneborn_berger",
            "Sonneborn-Berger: the points of each table-mate finished ahead of in a round (half for equal "
            "points), averaged per opponent met",
            lambda x: -x.sonneborn_berger,
        ),
        Metric(
            "head_to_head",
            "head-to-head: how many rivals tied with him he finished above at a table they shared",
            lambda x: -x.head_to_head,
        ),
        Metric("duraks", "fewer durak finishes", lambda x: x.duraks),
        Metric("wins", "more games won (first place alone at the table)", lambda x: -x.wins),
        Metric("games", "more games played", lambda x: -x.games),
        Metric("seed", "the better seed, fixed from the ratings at the event's start", lambda x: _seed_key(x.seed)),
    )
}


def _seed_key(seed: int | None) -> float:
    return float(seed) if seed is not None else float("inf")


def check_tiebreaks(names) -> list[str]:
    """The names as a list; ValueError naming the first unknown or repeated one."""
    if not isinstance(names, list | tuple):
        raise ValueError("the tie-breaks must be a list of names")
    seen = []
    for name in names:
        if name not in METRICS:
            raise ValueError(f"unknown tie-break {name!r}; known: {', '.join(METRICS)}")
        if name in seen:
            raise ValueError(f"tie-break {name!r} appears twice")
        seen.append(name)
    return seen


def tiebreaks_for(format_name: str, chosen=None) -> list[str]:
    """The event's tie-breaks: its own order when it has one, else its format's default."""
    if chosen:
        return check_tiebreaks(chosen)
    return list(registry.of_format(format_name).default_tiebreaks)


def head_to_head_counts(tied: set[int], results: list[dict]) -> dict[int, int]:
    """The head-to-head metric: the results of the games the tied entrants played against each other.

    For each entrant of `tied` (entrants equal on everything ranked before this metric: the
    group, the knockout round reached, points and the tie-breaks ordered before it), the number
    of tied rivals he finished above at the same table, summed over the event's games: at a
    table of four where three tied entrants sat, the first of them counts 2, the second 1, the
    third 0. One count per game: with several games a round, each game (its `game` number at
    the table) counts on its own. "Above" is more points in that game (the points follow the
    places; entrants who shared a place, or a durak's 0 beside a last place's 0, count for
    neither). A bye, a table without another tied entrant, or a rival not tied counts nothing.
    """
    games: dict[tuple, dict[int, float]] = {}
    for row in results:
        if row.get("table") is None or row["entrant"] not in tied:
            continue
        key = (row["round"], row["table"], row.get("game") or 0)
        at = games.setdefault(key, {})
        at[row["entrant"]] = at.get(row["entrant"], 0.0) + float(row["points"])
    counts = dict.fromkeys(tied, 0)
    for at in games.values():
        for entrant, points in at.items():
            counts[entrant] += sum(1 for other, theirs in at.items() if other != entrant and points > theirs)
    return counts


def lot(event_key, entrant: int) -> str:
    """LOT_RULE: the same for the same event and entrant, unrelated to registration order."""
    return hashlib.sha256(f"{event_key}:{entrant}".encode()).hexdigest()


def compute(
    entrants: list[int],
    results: list[dict],
    ratings: dict | None = None,
    *,
    groups: dict[int, str] | None = None,
    seeds: dict[int, int | None] | None = None,
    eliminated: dict[int, int | None] | None = None,
    knockout: bool = False,
    tiebreaks=None,
    event_key=0,
) -> list[Line]:
    """Standings from results.

    entrants: ids (registration order, used for nothing but ``Line.order``). results: dicts with
    entrant, round, table (any key naming the table in its round, None for a bye), points, durak and
    optionally game (the game's number at its table; tables of a round with unequal numbers of games
    follow UNEQUAL_GAMES_RULE) and place (the place at the table: a first place alone is a win).
    groups: entrant -> one of GROUPS (default "active"). seeds: the seeds fixed at the start (1 the
    best). eliminated: entrant -> the round it went out in (knockout).
    tiebreaks: names of METRICS in order (default: the Swiss ones).
    """
    ratings = ratings or {}
    groups = groups or {}
    seeds = seeds or {}
    eliminated = eliminated or {}
    chain = [METRICS[name] for name in check_tiebreaks(list(tiebreaks or tiebreaks_for("swiss")))]
    lines = {
        e: Line(
            entrant=e,
            order=i,
            rating=float(ratings[e]) if ratings.get(e) is not None else None,
            seed=seeds.get(e),
            group=groups.get(e, "active"),
            reached=eliminated.get(e),
            lot=lot(event_key, e),
        )
        for i, e in enumerate(entrants)
    }
    for line in lines.values():
        if line.group not in GROUPS:
            raise ValueError(f"unknown standing group {line.group!r}")

    # Games per table per round, for UNEQUAL_GAMES_RULE.
    games_at: dict[tuple, set] = {}
    for row in results:
        if row.get("table") is not None and row.get("game"):
            games_at.setdefault((row["round"], row["table"]), set()).add(row["game"])
    fullest: dict = {}
    for (round_number, _), games in games_at.items():
        fullest[round_number] = max(fullest.get(round_number, 0), len(games))
    unequal = {r for (r, _), games in games_at.items() if len(games) < fullest[r]}

    firsts: dict[tuple, int] = {}  # (round, table, game) -> first places there
    for row in results:
        if row.get("table") is not None and row.get("place") == 1:
            key = (row["round"], row["table"], row.get("game") or 0)
            firsts[key] = firsts.get(key, 0) + 1
    tables: dict[tuple, set] = {}
    table_points: dict[tuple, dict[int, float]] = {}
    for row in results:
        line = lines.get(row["entrant"])
        if line is None:
            continue
        points = float(row["points"])
        table = row.get("table")
        round_number = row["round"]
        if table is not None and round_number in unequal:
            played = len(games_at.get((round_number, table), ())) or fullest[round_number]
            points *= fullest[round_number] / played
            if round_number not in line.averaged_rounds:
                line.averaged_rounds.append(round_number)
        line.points += points
        line.by_round[round_number] = line.by_round.get(round_number, 0.0) + points
        if table is None:
            line.byes += 1
            continue
        line.games += 1
        line.duraks += 1 if row.get("durak") else 0
        if row.get("place") == 1 and firsts[(round_number, table, row.get("game") or 0)] == 1:
            line.wins += 1
        key = (round_number, table)
        tables.setdefault(key, set()).add(row["entrant"])
        mine = table_points.setdefault(key, {})
        mine[row["entrant"]] = mine.get(row["entrant"], 0.0) + points
    # Per opponent met (one count per opponent per table of a round): their current points, and
    # whether this entrant scored more (1), the same (1/2) or less (0) than they did at that table.
    met: dict[int, list[tuple[float, float]]] = {e: [] for e in lines}
    for key, members in tables.items():
        at_table = table_points[key]
        for entrant in members:
            lines[entrant].opponents.setdefault(key[0], []).extend(sorted(members - {entrant}))
            for o in members - {entrant}:
                share = 1.0 if at_table[entrant] > at_table[o] else 0.5 if at_table[entrant] == at_table[o] else 0.0
                met[entrant].append((lines[o].points, share))
    for line in lines.values():
        totals = sorted(points for points, _ in met[line.entrant])
        line.buchholz = sum(totals) / len(totals) if totals else 0.0
        trimmed = totals[1:-1] if len(totals) >= 3 else totals
        line.median_buchholz = sum(trimmed) / len(trimmed) if trimmed else 0.0
        beaten = sum(points * share for points, share in met[line.entrant])
        line.sonneborn_berger = beaten / len(totals) if totals else 0.0

    def sort_key(line: Line, metrics=chain):
        key = [GROUPS.index(line.group)]
        if knockout:
            key.append(-(line.reached if line.reached is not None else float("inf")))
        key.append(-line.points)
        key += [metric.key(line) for metric in metrics]
        key.append(line.lot)
        return key

    # Head-to-head reads who is tied: on everything ranked before it in the chain.
    names = [metric.name for metric in chain]
    if "head_to_head" in names:
        before = chain[: names.index("head_to_head")]
        ties: dict[tuple, set[int]] = {}
        for line in lines.values():
            key = tuple(round(k, 9) if isinstance(k, float) else k for k in sort_key(line, before)[:-1])
            ties.setdefault(key, set()).add(line.entrant)
        for tied in ties.values():
            if len(tied) > 1:
                for entrant, count in head_to_head_counts(tied, results).items():
                    lines[entrant].head_to_head = count

    ordered = sorted(lines.values(), key=sort_key)
    for rank, line in enumerate(ordered, start=1):
        line.rank = rank
    return ordered
