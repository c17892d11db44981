"""Apply rated games to ratings held in memory: the one code path both the
incremental update and the full recomputation use, so they agree exactly.

No database here: `ratings.services` reads the rows, feeds them in finishing
order, and writes back what the ledger produced.

What a game means (issue 8, R27):
- the seats are grouped by `GameSeat.team` (without partners every seat is its
  own team); a team's rank is the worst `counted_place` of its players, so the
  losing pair of partners play (R21) shares the last place, and a seat that
  abandoned (counted last) pulls its team down with it;
- equal ranks are ties (shared places, draws);
- a game with a bot seat, or fewer than two teams, rates nobody;
- when every team is a pair of two people (4-player partners), each pair's own
  pair rating is updated too, from the same ranks;
- repeated games count less (docs/ratings.md, "Repeated games"): a game after
  which k - 1 games of the same set of players counted in the 24 hours before
  its finish counts `rating_model.repeat_weight(k)` (1/k; nothing from k = 6 on,
  so a set of players moves its ratings by at most 5 games in any 24 hours).
  A game that counts nothing changes no rating and adds no change row (it is
  still marked applied: `RatedGame`). The ledger remembers, per set of players,
  when its counted games finished; an incremental update first `remember`s the
  window's games applied before it (counted = has change rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import NamedTuple

from ratings import model as rating_model


class SeatRow(NamedTuple):
    """One seat as the ratings read it. A tuple: a recomputation reads hundreds of thousands
    of seats, and a tuple is made straight from the database's row (`game_id` last, so the
    selectors' SEAT_FIELDS row is a SeatRow as it comes), where an object per seat cost a
    fifth of the reading."""

    number: int
    user_id: int | None
    bot_level: str
    team: int
    counted_place: int | None
    game_id: int | None = None


@dataclass(slots=True)
class GameRow:
    game_id: int
    finished_at: object
    seats: list = field(default_factory=list)


@dataclass(slots=True)
class Standing:
    mu: float
    sigma: float
    games: int = 0
    last_played: object = None

    def update(self, rated: tuple[float, float], finished_at) -> None:
        self.mu, self.sigma = rated
        self.games += 1
        self.last_played = finished_at


def game_teams(seats) -> list[tuple[list, int]] | None:
    """[(seats of one team, its rank)], or None when the game rates nobody."""
    if len(seats) < 2:
        return None
    teams: dict[int, list] = {}
    for seat in seats:
        if seat.user_id is None or seat.bot_level or seat.counted_place is None:
            return None
        members = teams.get(seat.team)
        if members is None:
            teams[seat.team] = [seat]
        else:
            members.append(seat)
    if len(teams) < 2 or len({seat.user_id for seat in seats}) < len(seats):  # (one person, two seats)
        return None
    if len(teams) == len(seats):  # no partners: each seat's team is itself
        return [([seat], seat.counted_place) for _, seat in sorted((seat.team, seat) for seat in seats)]
    return [(members, max(s.counted_place for s in members)) for _, members in sorted(teams.items())]


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


REPEAT_WINDOW = timedelta(hours=rating_model.REPEAT_WINDOW_HOURS)
PRUNE_EVERY = 10_000


def players_key(seats) -> frozenset:
    """The set of people at a game: what "the same players" means for repeated games."""
    return frozenset(seat.user_id for seat in seats)


class Ledger:
    """Ratings of one variant in memory, and the change rows games produce.

    `repeat_rule=False` rates every game in full (the rating study's "before")."""

    def __init__(
        self,
        players: dict | None = None,
        pairs: dict | None = None,
        *,
        model_name: str = "",
        repeat_rule: bool = True,
        window=REPEAT_WINDOW,
    ):
        self.players: dict[int, Standing] = players if players is not None else {}
        self.pairs: dict[tuple[int, int], Standing] = pairs if pairs is not None else {}
        self.model_name = model_name
        self.repeat_rule = repeat_rule
        self.window = window
        self.touched_players: set[int] = set()
        self.touched_pairs: set[tuple[int, int]] = set()
        self.recent: dict[frozenset, list] = {}
        self._since_prune = 0

    def _repeat(self, key: frozenset, when) -> int:
        """This game's k among its players' games that counted within the window (1 = the first)."""
        times = self.recent.get(key)
        if not times:
            return 1
        start = when - self.window
        while times and times[0] <= start:
            del times[0]
        return len(times) + 1

    def _counted(self, key: frozenset, when) -> None:
        """Remember a game that counted (at most REPEAT_LIMIT per set stay in the window).
        Now and then the sets whose last counted game left the window are forgotten,
        so a recomputation keeps about one day's sets, not every set ever seen."""
        self.recent.setdefault(key, []).append(when)
        self._since_prune += 1
        if self._since_prune >= PRUNE_EVERY:
            self._since_prune = 0
            start = when - self.window
            self.recent = {k: times for k, times in self.recent.items() if times[-1] > start}

    def remember(self, game: GameRow, counted: bool) -> None:
        """A game applied earlier (not rated again) that `counted` (changed ratings) or not:
        an incremental update first remembers the window's games."""
        if counted and game_teams(game.seats) is not None:
            key = players_key(game.seats)
            self._repeat(key, game.finished_at)
            self._counted(key, game.finished_at)

    def _player(self, user_id: int) -> Standing:
        standing = self.players.get(user_id)
        if standing is None:
            standing = self.players[user_id] = Standing(rating_model.MU, rating_model.SIGMA)
        return standing

    def _pair(self, key: tuple[int, int]) -> Standing:
        standing = self.pairs.get(key)
        if standing is None:
            standing = self.pairs[key] = Standing(rating_model.MU, rating_model.SIGMA)
        return standing

    def apply(self, game: GameRow) -> list[tuple]:
        """Rate one game; return one change per seat:
        (user_id, seat, place, mu_before, sigma_before, mu_after, sigma_after)."""
        teams = game_teams(game.seats)
        if teams is None:
            return []
        when = game.finished_at
        weight = 1.0
        if self.repeat_rule:
            key = players_key(game.seats)
            weight = rating_model.repeat_weight(self._repeat(key, when))
            if weight == 0.0:
                return []
            self._counted(key, when)
        players, touched = self.players, self.touched_players
        standings = []
        for members, _ in teams:
            team_standings = []
            for seat in members:
                standing = players.get(seat.user_id)
                if standing is None:
                    standing = players[seat.user_id] = Standing(rating_model.MU, rating_model.SIGMA)
                team_standings.append(standing)
            standings.append(team_standings)
        ranks = [rank for _, rank in teams]
        name = self.model_name
        new = rating_model.rate([[(st.mu, st.sigma) for st in team] for team in standings], ranks, model_name=name)
        changes = []
        weighted = rating_model.weighted
        for (members, rank), team_standings, team_new in zip(teams, standings, new, strict=True):
            for seat, standing, rated in zip(members, team_standings, team_new, strict=True):
                mu, sigma = standing.mu, standing.sigma
                if weight != 1.0:  # (weighted(..., 1.0) is `rated` itself)
                    rated = weighted((mu, sigma), rated, weight)
                changes.append((seat.user_id, seat.number, rank, mu, sigma, rated[0], rated[1]))
                # (Standing.update, inlined: it runs for every seat of every game)
                standing.mu, standing.sigma = rated
                standing.games += 1
                standing.last_played = when
                touched.add(seat.user_id)
        if all(len(members) == 2 for members, _ in teams):
            keys = [pair_key(members[0].user_id, members[1].user_id) for members, _ in teams]
            pairs = [self._pair(key) for key in keys]
            new_pairs = rating_model.rate([[(p.mu, p.sigma)] for p in pairs], ranks, model_name=name)
            for key, pair, (rated,) in zip(keys, pairs, new_pairs, strict=True):
                pair.update(rating_model.weighted((pair.mu, pair.sigma), rated, weight), when)
                self.touched_pairs.add(key)
        return changes
