"""Scoring, standings and the tie-breaks: no database (Django only for the tie-breaks' translated names).

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

Tie-breaks: each is one subclass of Metric, registered in METRICS by its name when the class
is defined. It computes its own values from the standings' lines and games (`values`), names
itself in both languages (`label` for the rules text, `header` for a column) and says how it
prints (`places`, `text`, `number`). Whatever needs the names (the checks of an event's order,
the columns of the page, the exports and the print) reads them here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import ClassVar

from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

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
    """One entrant's line. The tie-breaks' values are in `values` by metric name, and read as
    attributes too (``line.buchholz``)."""

    entrant: int
    points: float = 0.0
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
    values: dict = field(default_factory=dict)  # metric name -> value, for every metric of METRICS

    def __getattr__(self, name):
        values = self.__dict__.get("values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(name)


@dataclass
class Board:
    """What the metrics compute from: the lines (points, games, rounds) and the games.

    results: the rows given to `compute` (entrant, round, table, points, durak, game, place).
    tables: (round, table) -> {entrant: his points there that round, as the standings count them}.
    """

    lines: dict[int, Line]
    results: list[dict]
    tables: dict[tuple, dict[int, float]]
    _met: dict = field(default_factory=dict, repr=False)

    def meetings(self, entrant: int) -> list[tuple[int, float, float]]:
        """(opponent, my points, his points) per opponent met, once per table of a round."""
        if not self._met:
            for at in self.tables.values():
                for mine, points in at.items():
                    met = self._met.setdefault(mine, [])
                    met += [(other, points, theirs) for other, theirs in sorted(at.items()) if other != mine]
        return self._met.get(entrant, [])

    def rounds(self) -> list[int]:
        return sorted({row["round"] for row in self.results})


#: The registry of tie-breaks: name -> the metric (each Metric subclass with a name adds itself).
METRICS: dict[str, Metric] = {}


class Metric:
    """One tie-break. A subclass names itself (`name`, the code name an event stores; `label`, the
    rules text; `header`, the column's head, both translated), states its definition
    (`description`), computes its values (`values`) and says how they print (`places`)."""

    name: ClassVar[str] = ""
    label: ClassVar = ""
    header: ClassVar = ""
    description: ClassVar[str] = ""
    higher_is_better: ClassVar[bool] = True
    #: Decimals a value prints with at most (trailing zeros dropped): 3.75 "3,75", 3.5 "3,5", 3 "3".
    places: ClassVar[int] = 0
    #: Its values read who is still tied on everything ranked before it (head-to-head).
    reads_ties: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            if cls.name in METRICS:
                raise ValueError(f"tie-break {cls.name!r} is registered twice")
            METRICS[cls.name] = cls()

    def values(self, board: Board, tied: list[set[int]]) -> dict[int, float | None]:
        """entrant -> value for every line of the board. `tied`: the groups of entrants equal on
        everything ranked before this metric (read only when `reads_ties`)."""
        raise NotImplementedError

    def key(self, value) -> float:
        """Sorted ascending, the better first."""
        return -value if self.higher_is_better else value

    def number(self, value) -> float | int | None:
        """The value as a sheet holds it: rounded to `places`, a whole number as an int."""
        return rounded(value, self.places)

    def text(self, value) -> str:
        """The value as a page or a printout shows it, in the active language (3,75 in Russian)."""
        return number_text(value, self.places)


def rounded(value, places: int = 2) -> float | int | None:
    """A number rounded to `places` decimals, a whole number as an int (3.0 -> 3)."""
    if value is None:
        return None
    value = round(float(value), places)
    return int(value) if value.is_integer() else value


def number_text(value, places: int = 2) -> str:
    """A number as the pages print points and tie-breaks: at most `places` decimals, no trailing
    zeros, the active language's decimal mark (3,75; 4,5; 3 in Russian); a dash for none."""
    shown = rounded(value, places)
    return "–" if shown is None else number_format(shown)


def _average(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


class Buchholz(Metric):
    name = "buchholz"
    label = _("Buchholz (the average points of the opponents met, per opponent)")
    header = pgettext_lazy("tie-break column", "Buchholz")
    description = "Buchholz: the average points of the opponents met, per opponent"
    places = 2

    def values(self, board, tied):
        return {e: _average([board.lines[o].points for o, _m, _t in board.meetings(e)]) for e in board.lines}


class MedianBuchholz(Metric):
    name = "median_buchholz"
    label = _("median Buchholz (the same without the best and the worst opponent)")
    header = pgettext_lazy("tie-break column", "Median Buchholz")
    description = "median Buchholz: the same average without the best and the worst opponent (three or more met)"
    places = 2

    def values(self, board, tied):
        out = {}
        for e in board.lines:
            totals = sorted(board.lines[o].points for o, _m, _t in board.meetings(e))
            out[e] = _average(totals[1:-1] if len(totals) >= 3 else totals)
        return out


class SonnebornBerger(Metric):
    name = "sonneborn_berger"
    label = _(
        "Sonneborn-Berger (the points of each table-mate you outscored in a round, half for equal points, per opponent)"
    )
    header = pgettext_lazy("tie-break column", "Sonneborn-Berger")
    description = (
        "Sonneborn-Berger: the points of each table-mate finished ahead of in a round (half for equal "
        "points), averaged per opponent met"
    )
    places = 2

    def values(self, board, tied):
        out = {}
        for e in board.lines:
            met = board.meetings(e)
            shares = [board.lines[o].points * (1.0 if m > t else 0.5 if m == t else 0.0) for o, m, t in met]
            out[e] = sum(shares) / len(met) if met else 0.0
        return out


class HeadToHead(Metric):
    name = "head_to_head"
    label = _("head-to-head (how many rivals tied on points one finished above at the same table)")
    header = pgettext_lazy("tie-break column", "Head-to-head")
    description = "head-to-head: how many rivals tied with him he finished above at a table they shared"
    reads_ties = True

    def values(self, board, tied):
        out = dict.fromkeys(board.lines, 0)
        for group in tied:
            if len(group) > 1:
                out.update(head_to_head_counts(group, board.results))
        return out


class Duraks(Metric):
    name = "duraks"
    label = _("fewer durak finishes")
    header = pgettext_lazy("tie-break column", "Durak finishes")
    description = "fewer durak finishes"
    higher_is_better = False

    def values(self, board, tied):
        out = dict.fromkeys(board.lines, 0)
        for row in board.results:
            if row["entrant"] in out and row.get("table") is not None and row.get("durak"):
                out[row["entrant"]] += 1
        return out


class Wins(Metric):
    name = "wins"
    label = _("more games won (first place alone at the table)")
    header = pgettext_lazy("tie-break column", "Wins")
    description = "more games won (first place alone at the table)"

    def values(self, board, tied):
        firsts: dict[tuple, list[int]] = {}  # (round, table, game) -> who took a first place there
        for row in board.results:
            if row.get("table") is not None and row.get("place") == 1:
                firsts.setdefault((row["round"], row["table"], row.get("game") or 0), []).append(row["entrant"])
        out = dict.fromkeys(board.lines, 0)
        for winners in firsts.values():
            if len(winners) == 1 and winners[0] in out:
                out[winners[0]] += 1
        return out


class Games(Metric):
    name = "games"
    label = _("more games played")
    header = pgettext_lazy("tie-break column", "Games")
    description = "more games played"

    def values(self, board, tied):
        return {e: line.games for e, line in board.lines.items()}


class Seed(Metric):
    name = "seed"
    label = _("the better seed (from the ratings at the event's start)")
    header = pgettext_lazy("tie-break column", "Seed")
    description = "the better seed, fixed from the ratings at the event's start"
    higher_is_better = False

    def values(self, board, tied):
        return {e: line.seed for e, line in board.lines.items()}

    def key(self, value) -> float:
        return float(value) if value is not None else float("inf")


class ProgressiveScore(Metric):
    name = "progressive"
    label = _(
        "progressive score (the sum of the running totals of points after each round: points won early count more)"
    )
    header = pgettext_lazy("tie-break column", "Progressive")
    description = (
        "progressive (cumulative) score, the sum of progressive scores of FIDE's tie-break "
        "regulations (PS): the sum of the running totals of points after each round of the event "
        "(rounds scoring 1, 0, 1 give 1 + 1 + 2 = 4), the more the better. A bye's points count as "
        "scored (US Chess's cumulative variant would take them off); a round not played (a late "
        "entry, after a withdrawal) adds the total so far"
    )
    places = 2

    def values(self, board, tied):
        rounds = board.rounds()
        out = {}
        for entrant, line in board.lines.items():
            running = total = 0.0
            for number in rounds:
                running += line.by_round.get(number, 0.0)
                total += running
            out[entrant] = total
        return out


class TiebreakError(ValueError):
    """An order of tie-breaks that cannot be saved: the message in English, `text` translated."""

    def __init__(self, message: str, text):
        super().__init__(message)
        self.text = text


def check_tiebreaks(names) -> list[str]:
    """The names as a list; TiebreakError (a ValueError) naming the first unknown or repeated one."""
    if not isinstance(names, list | tuple):
        raise TiebreakError("the tie-breaks must be a list of names", _("The tie-breaks are a list of names."))
    seen = []
    for name in names:
        if not isinstance(name, str) or name not in METRICS:
            raise TiebreakError(
                f"unknown tie-break {name!r}; known: {', '.join(METRICS)}",
                _("There is no tie-break “%(name)s”. Choose from: %(names)s.")
                % {"name": name, "names": ", ".join(METRICS)},
            )
        if name in seen:
            raise TiebreakError(
                f"tie-break {name!r} appears twice",
                _("The tie-break “%(name)s” is listed twice: each comes once.") % {"name": name},
            )
        seen.append(name)
    return seen


def tiebreak_refusal(names) -> str | None:
    """Why this order of tie-breaks cannot be saved, in the active language; None if it can."""
    try:
        check_tiebreaks(names)
    except TiebreakError as error:
        return str(error.text)
    return None


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
    tiebreaks: names of METRICS in order (default: the Swiss ones). Every metric of METRICS is
    computed for every line (`Line.values`); those of the chain order it.
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
    for (round_number, _table), games in games_at.items():
        fullest[round_number] = max(fullest.get(round_number, 0), len(games))
    unequal = {r for (r, _table), games in games_at.items() if len(games) < fullest[r]}

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
        mine = table_points.setdefault((round_number, table), {})
        mine[row["entrant"]] = mine.get(row["entrant"], 0.0) + points
    for (round_number, _table), at in table_points.items():
        for entrant in at:
            lines[entrant].opponents.setdefault(round_number, []).extend(sorted(set(at) - {entrant}))
    board = Board(lines, results, table_points)

    def sort_key(line: Line, metrics=chain):
        key = [GROUPS.index(line.group)]
        if knockout:
            key.append(-(line.reached if line.reached is not None else float("inf")))
        key.append(-line.points)
        key += [metric.key(line.values[metric.name]) for metric in metrics]
        key.append(line.lot)
        return key

    def tied_on(before: list[Metric]) -> list[set[int]]:
        """The groups of entrants equal on everything ranked before a metric (the lot aside)."""
        ties: dict[tuple, set[int]] = {}
        for line in lines.values():
            key = tuple(round(k, 9) if isinstance(k, float) else k for k in sort_key(line, before)[:-1])
            ties.setdefault(key, set()).add(line.entrant)
        return list(ties.values())

    # The chain's metrics in its order (one may read the ties its predecessors leave), then the
    # others, as if ranked after the chain: every line carries every metric's value.
    others = [metric for name, metric in METRICS.items() if metric not in chain]
    for index, metric in enumerate([*chain, *others]):
        before = chain[: min(index, len(chain))]
        values = metric.values(board, tied_on(before) if metric.reads_ties else [])
        for entrant, line in lines.items():
            line.values[metric.name] = values[entrant]

    ordered = sorted(lines.values(), key=sort_key)
    for rank, line in enumerate(ordered, start=1):
        line.rank = rank
    return ordered
