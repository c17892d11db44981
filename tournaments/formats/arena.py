"""The arena: for a fixed time, whoever finishes a game is seated again with others who are free.

Scoring (the rules the event page states; lichess's arena, at Durak tables of 2 to 6):

- **Points by place.** A game scores the club's points by place for the size of the table it was
  played at (``default_points``): at a table of four 3/2/1/0, of three 2/1/0, of two 1/0; players
  who share a place share the points of the places they fill (``shared``). lichess gives 2 for a
  win and 1 for a draw at its tables of two; the club keeps its points by place, so a win at a
  bigger table, where one beats more players, is worth more.
- **Streak (on fire).** A game is *won* when its player is first alone (a shared first place is a
  draw). After ``STREAK_AFTER`` (2) won games in a row the player is on fire: each following game's
  points by place are doubled until he plays a game he does not win. That game is still doubled
  (lichess: a draw on fire scores 2); the streak ends with it.
- **Berserk.** Before his first move a player may halve his own turn timer for that game; if he
  then wins it, he gets ``BERSERK_BONUS`` (1) point more. The bonus is added after the doubling
  (lichess: a berserk win on fire scores 4 + 1), so it is never doubled. A berserk game not won
  scores its plain points by place.
- **Absent.** A game he forfeited or never came to scores 0 and ends his streak.

Seating (``arena_tables``, one pass over whoever is free now):

- Who waits longest is seated first. A player is *ready* once he has waited ``min_wait_s``
  seconds (at ``min_wait_s = 0`` everybody is ready at once).
- Full tables of the event's size first: ``n`` free players make ``n // table_size`` full tables,
  and the ``n % table_size`` who became free last wait for the next pass, as long as none of them
  is ready. When a ready player would be left over, everyone free is seated at balanced tables
  instead (``table_sizes``: all within one seat of each other, never a table of one), so a table
  smaller than the event's size is dealt only when someone has waited long enough. At tables of two
  an odd player out still waits: never a table of one.
- The seated players are ranked by points, then rating (players without one after those with one),
  then a draw with ``seed``; the tables are cut from the top of the ranking, so scores are close.
- Then local swaps: a player at a table with a recent table-mate (``recent_mates``) is swapped with
  a player of a table at most ``SWAP_REACH`` tables away, the swap that removes the most such
  meetings and, among those, moves the smallest difference in points.
- A table that still seats two recent table-mates is held back when none of its players is ready:
  a few seconds' wait usually brings other players. Once one of them is ready it is dealt anyway.
- Players who finish a game together are free together: in a big arena the seconds of
  ``min_wait_s`` bring others to mix them with; in a small one (a few tables, whose games end
  tens of seconds apart) they usually play together again once ready. ``bench_arena`` measures both.
- The seat order at each table is drawn with ``seed``. The same arguments give the same tables, in
  whatever order ``free`` lists the players.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .apart import seat_apart
from .scoring import default_points
from .seating import check_entrants, check_table_size, table_sizes

#: Won games in a row after which the next games' points are doubled (lichess: two).
STREAK_AFTER = 2
#: Extra points for a game won after going berserk (half the turn timer), never doubled.
BERSERK_BONUS = 1
#: The wait this core was measured with (``bench_arena``): a free player may be kept waiting this
#: long for a full table, or for players he did not just meet; then he is seated with whoever is free.
MIN_WAIT_S = 5.0
#: How many tables away a player may be swapped to part him from a recent table-mate.
SWAP_REACH = 2
#: Passes over all tables (a swap with an earlier table may leave it a meeting the first pass missed).
SWAP_SWEEPS = 2


@dataclass(frozen=True)
class FreePlayer:
    """An entrant waiting for his next arena table (a pair is one entrant in pairs events)."""

    entrant: int
    points: float
    free_since: float
    rating: float | None = None
    recent_mates: frozenset[int] = frozenset()


@dataclass(frozen=True)
class ArenaGame:
    """One finished game of one entrant. ``shared``: how many players share his ``place`` (1 alone)."""

    place: int
    table_size: int
    berserk: bool = False
    absent: bool = False
    shared: int = 1

    def __post_init__(self):
        if not isinstance(self.table_size, int) or not 2 <= self.table_size <= 6:
            raise ValueError(f"table_size must be an int from 2 to 6, not {self.table_size!r}")
        if self.absent:
            return
        if not isinstance(self.shared, int) or self.shared < 1:
            raise ValueError(f"shared must be a positive int, not {self.shared!r}")
        if not isinstance(self.place, int) or self.place < 1 or self.place + self.shared - 1 > self.table_size:
            raise ValueError(f"place {self.place!r} shared by {self.shared} does not fit a table of {self.table_size}")

    @property
    def won(self) -> bool:
        """First alone: the game that builds a streak and earns the berserk point."""
        return not self.absent and self.place == 1 and self.shared == 1

    @property
    def place_points(self) -> float:
        """Points by place at this game's table, shared places sharing; 0 when absent."""
        if self.absent:
            return 0.0
        points = default_points(self.table_size)
        return sum(points[self.place - 1 : self.place - 1 + self.shared]) / self.shared


@dataclass(frozen=True)
class ArenaScore:
    """An entrant's arena score so far (``arena_score``)."""

    points: float
    streak: int
    on_fire: bool
    per_game: tuple[float, ...]


def arena_score(games: Sequence[ArenaGame]) -> ArenaScore:
    """An entrant's arena score from his finished games in the order played (rules: module docstring).

    ``streak``: won games in a row now; ``on_fire``: his next game's points would be doubled;
    ``per_game``: what each game scored, doubling and berserk point included.
    """
    total = 0.0
    streak = 0
    per_game = []
    for game in games:
        points = game.place_points * (2 if streak >= STREAK_AFTER else 1)
        if game.won:
            streak += 1
            if game.berserk:
                points += BERSERK_BONUS
        else:
            streak = 0
        per_game.append(points)
        total += points
    return ArenaScore(points=total, streak=streak, on_fire=streak >= STREAK_AFTER, per_game=tuple(per_game))


def arena_tables(
    free: Sequence[FreePlayer],
    table_size: int,
    *,
    now: float,
    min_wait_s: float = 0.0,
    seed: int = 0,
    apart: dict[int, object] | None = None,
) -> list[list[int]]:
    """One seating pass: the tables dealt now (entrant ids in seat order, the top table first).

    Everyone not in the result waits for a later pass (rules: module docstring). Never a table of one;
    every table seats 2 to ``table_size``. Deterministic; 1000 free players at tables of four take a
    few milliseconds (``bench_arena``).

    ``apart`` (entrant -> group, e.g. his club in a club battle): the ranked players are seated by
    ``apart.seat_apart`` instead of the plain cut and swaps, so no two of one group share a table
    while the tables allow (before recent table-mates, before points).
    """
    check_table_size(table_size)
    check_entrants([player.entrant for player in free])
    if len(free) < 2:
        return []
    rng = random.Random(seed)
    by_entrant = sorted(free, key=lambda player: player.entrant)
    lot = {player.entrant: rng.random() for player in by_entrant}
    ready_since = now - min_wait_s

    by_wait = sorted(by_entrant, key=lambda player: (player.free_since, lot[player.entrant]))
    ready = sum(player.free_since <= ready_since for player in by_wait)
    full = len(by_wait) // table_size
    if ready <= full * table_size:
        sizes = [table_size] * full
    else:
        sizes = table_sizes(len(by_wait), table_size)
    seated = by_wait[: sum(sizes)]
    if not seated:
        return []

    seated.sort(key=lambda p: (-p.points, p.rating is None, -(p.rating or 0.0), lot[p.entrant]))
    tables = []
    if apart:
        by_id = {p.entrant: p for p in seated}
        recent = {p.entrant: dict.fromkeys(p.recent_mates, 1) for p in seated}
        points = {p.entrant: p.points for p in seated}
        apart_tables = seat_apart([p.entrant for p in seated], sizes, apart, recent, points)
        tables = [[by_id[entrant] for entrant in table] for table in apart_tables]
    else:
        start = 0
        for size in sizes:
            tables.append(seated[start : start + size])
            start += size
        _part_recent_mates(tables)

    dealt = []
    for table in tables:
        if _clashes(table) and all(player.free_since > ready_since for player in table):
            continue
        entrants = [player.entrant for player in table]
        rng.shuffle(entrants)
        dealt.append(entrants)
    return dealt


def _met(a: FreePlayer, b: FreePlayer) -> bool:
    return b.entrant in a.recent_mates or a.entrant in b.recent_mates


def _clashes(table: list[FreePlayer]) -> int:
    """Pairs of recent table-mates at one table."""
    return sum(_met(a, b) for i, a in enumerate(table) for b in table[i + 1 :])


def _part_recent_mates(tables: list[list[FreePlayer]]) -> None:
    """Swap players between tables up to ``SWAP_REACH`` apart while that parts recent table-mates.

    Each swap lowers the number of recent meetings, so this ends; nearer tables are tried first,
    and among the swaps that part as many, the one that moves the smallest difference in points.
    """
    player = {p.entrant: p for table in tables for p in table}
    mates: dict[int, set[int]] = {entrant: set() for entrant in player}
    for entrant, p in player.items():
        for mate in p.recent_mates:
            if mate in player and mate != entrant:
                mates[entrant].add(mate)
                mates[mate].add(entrant)
    if not any(mates.values()):
        return
    ids = [[p.entrant for p in table] for table in tables]
    sets = [set(table) for table in ids]
    points = {entrant: p.points for entrant, p in player.items()}

    def clashing(ti: int) -> bool:
        members = sets[ti]
        return any(mates[entrant] & members for entrant in ids[ti])

    def best_swap(ti: int, ui: int) -> bool:
        if not 0 <= ui < len(ids):
            return False
        here, there, here_set, there_set = ids[ti], ids[ui], sets[ti], sets[ui]
        # For each player of the other table: his mates there (parted if he moves) and here (met if he moves).
        stays_there = [len(mates[b] & there_set) for b in there]
        meets_here = [len(mates[b] & here_set) for b in there]
        best = None
        for i, a in enumerate(here):
            mates_a = mates[a]
            stays = len(mates_a & here_set)
            if not stays:
                continue
            meets_there = len(mates_a & there_set)
            for j, b in enumerate(there):
                met = 2 if b in mates_a else 0  # a and b stay apart either way
                gain = stays + stays_there[j] - meets_here[j] - meets_there + met
                if gain > 0:
                    key = (-gain, abs(points[a] - points[b]), i, j)
                    if best is None or key < best:
                        best = key
        if best is None:
            return False
        _, _, i, j = best
        a, b = here[i], there[j]
        here[i], there[j] = b, a
        here_set.remove(a)
        here_set.add(b)
        there_set.remove(b)
        there_set.add(a)
        return True

    for _ in range(SWAP_SWEEPS):
        swapped = False
        for ti in range(len(ids)):
            while clashing(ti):
                for reach in range(1, SWAP_REACH + 1):
                    if best_swap(ti, ti + reach) or best_swap(ti, ti - reach):
                        swapped = True
                        break
                else:
                    break
        if not swapped:
            break
    for table, entrants in zip(tables, ids):
        table[:] = [player[entrant] for entrant in entrants]
