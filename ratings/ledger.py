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
  pair rating is updated too, from the same ranks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ratings import model as rating_model


@dataclass(slots=True)
class SeatRow:
    number: int
    user_id: int | None
    bot_level: str
    team: int
    counted_place: int | None


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
    users = set()
    teams: dict[int, list] = {}
    for seat in seats:
        if seat.user_id is None or seat.bot_level or seat.counted_place is None:
            return None
        if seat.user_id in users:
            return None
        users.add(seat.user_id)
        teams.setdefault(seat.team, []).append(seat)
    if len(teams) < 2:
        return None
    return [(members, max(s.counted_place for s in members)) for _, members in sorted(teams.items())]


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


class Ledger:
    """Ratings of one variant in memory, and the change rows games produce."""

    def __init__(self, players: dict | None = None, pairs: dict | None = None, *, model_name: str = ""):
        self.players: dict[int, Standing] = players if players is not None else {}
        self.pairs: dict[tuple[int, int], Standing] = pairs if pairs is not None else {}
        self.model_name = model_name
        self.touched_players: set[int] = set()
        self.touched_pairs: set[tuple[int, int]] = set()

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
        standings = [[self._player(s.user_id) for s in members] for members, _ in teams]
        ranks = [rank for _, rank in teams]
        name = self.model_name
        new = rating_model.rate([[(st.mu, st.sigma) for st in team] for team in standings], ranks, model_name=name)
        changes = []
        when = game.finished_at
        for (members, rank), team_standings, team_new in zip(teams, standings, new, strict=True):
            for seat, standing, rated in zip(members, team_standings, team_new, strict=True):
                changes.append((seat.user_id, seat.number, rank, standing.mu, standing.sigma, rated[0], rated[1]))
                standing.update(rated, when)
                self.touched_players.add(seat.user_id)
        if all(len(members) == 2 for members, _ in teams):
            keys = [pair_key(members[0].user_id, members[1].user_id) for members, _ in teams]
            pairs = [self._pair(key) for key in keys]
            new_pairs = rating_model.rate([[(p.mu, p.sigma)] for p in pairs], ranks, model_name=name)
            for key, pair, (rated,) in zip(keys, pairs, new_pairs, strict=True):
                pair.update(rated, when)
                self.touched_pairs.add(key)
        return changes
