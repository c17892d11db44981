"""The rating mathematics of one game: pure functions, no Django.

Everything the site computes about skill goes through this module, so the
model is chosen by ONE constant, `MODEL_NAME` (an openskill Weng-Lin model;
docs/ratings.md measures which one predicts Durak results best). The rest of
the ratings app and the rating study only call:

- `rate(teams, ranks)`: one game. `teams` is a list of teams, each a list of
  `(mu, sigma)` per player; `ranks` gives each team's place (lower is better,
  equal ranks are a tie). Returns the new `(mu, sigma)` per player, in the
  same shape. Deterministic and symmetric (see "Ties" below).
- `display_rating(mu, sigma)`: the number players see.
- `is_provisional(games, sigma)`: shown as "?" while true.
- `chances_not_durak(teams)`: each team's chance of not finishing last,
  the chance shown when a rated game starts; `predict_win` and
  `predict_rank` pass openskill's own predictions through.

Ties. openskill.py issue 173 reported a 1v1 tie that moved two equal players
differently (6.1.x), and openskill.js issue 332 a multi-way tie ranked below
a worse place. openskill 6.2 still has the second kind of fault in its
Plackett-Luce tie handling: three equal players sharing first place among five
gain LESS than the player alone in second place, and two players sharing
second can end level with the third (tests/ratings/test_model.py found both).
So ties are not given to the library as ties:

1. A tie is read as "every order of the tied teams is equally likely": the
   game is rated once for each way round of breaking the ties (the tied teams
   rotated through their places, math.lcm of the group sizes runs, so each tied
   team takes each of the shared places equally often) and the new ratings are
   averaged. A tied team therefore ends between the places it shares, never
   below a worse place or above a better one. Games without ties take one run,
   exactly the library's own result.
2. A result never depends on seat numbers: the library orders teams by their
   (strict) ranks itself, and tied teams are rotated from a canonical order
   (by their ratings). Teams that tie AND come in with identical ratings leave
   with identical ratings (their results are averaged in canonical order: the
   floating-point sums of the runs may otherwise differ in the last bit).
"""

from __future__ import annotations

import math
from functools import cache

MODEL_NAME = "PlackettLuce"

# openskill's defaults: a new player is 25 +- 25/3.
MU = 25.0
SIGMA = 25.0 / 3.0

# The display: openskill's ordinal, alpha * (mu - 3 sigma) + target (its
# documented way to move the conservative estimate onto an Elo-like scale).
# alpha = 200 / SIGMA makes one starting deviation 200 points (an Elo class);
# target puts an average player (mu = MU) whose deviation has settled to
# SETTLED_SIGMA at exactly 1500, so the ladder is centred on 1500.
SETTLED_SIGMA = 2.0
DISPLAY_ALPHA = 200.0 / SIGMA
DISPLAY_TARGET = 1500.0 - DISPLAY_ALPHA * (MU - 3.0 * SETTLED_SIGMA)

# "?" while fewer games than this, or while the deviation is above PROVISIONAL_SIGMA.
# Measured with PlackettLuce: sigma is about 6.3 after 10 two-player games, 7.0
# after 10 four-player games (about 6.5 after 14), 2.5 after 100 two-player games.
PROVISIONAL_GAMES = 10
PROVISIONAL_SIGMA = 6.5


@cache
def get_model(name: str = ""):
    """The openskill model instance for `name` (default `MODEL_NAME`), built once."""
    from openskill import models

    cls = getattr(models, name or MODEL_NAME)
    return cls(mu=MU, sigma=SIGMA)


def _check(teams, ranks) -> None:
    if len(teams) < 2:
        raise ValueError("a rated game needs at least two teams")
    if len(ranks) != len(teams):
        raise ValueError("one rank per team")
    for team in teams:
        if not team:
            raise ValueError("a team needs at least one player")
        for mu, sigma in team:
            if not (math.isfinite(mu) and math.isfinite(sigma)) or sigma <= 0:
                raise ValueError(f"bad rating ({mu}, {sigma})")


def _team_key(team) -> tuple:
    return tuple(sorted(team))


def rate(teams, ranks, *, model_name: str = "") -> list[list[tuple[float, float]]]:
    """New `(mu, sigma)` for every player of one game (see the module docstring)."""
    _check(teams, ranks)
    rating = get_model(model_name).rating
    library_teams = [[rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in teams]
    return [[(p.mu, p.sigma) for p in team] for team in rate_ratings(library_teams, ranks, model_name=model_name)]


def rate_ratings(teams, ranks, *, model_name: str = "") -> list[list]:
    """`rate` on the model's own rating objects (`get_model().rating(...)`), returning new ones.

    The ledger keeps these objects between games, which spares building one per
    player per game; `rate` is this function on plain numbers. Inputs are not changed.
    """
    model = get_model(model_name)
    tied: dict = {}
    for i, rank in enumerate(ranks):
        tied.setdefault(rank, []).append(i)
    if len(tied) == len(teams):
        # No tie: the library orders the teams by rank itself, so the call order
        # (the seats) cannot change the result.
        return model.rate(teams, ranks=list(ranks))

    # Correction 1: every tie broken each way round (the tied teams, in a canonical
    # order, rotated through their places), the results averaged.
    inputs = [tuple((p.mu, p.sigma) for p in team) for team in teams]
    keys = [tuple(sorted(team)) for team in inputs]
    groups = [sorted(tied[rank], key=lambda i: (keys[i], i)) for rank in sorted(tied)]
    runs = []
    for turn in range(math.lcm(*(len(group) for group in groups))):
        strict = [0] * len(teams)
        place = 0
        for group in groups:
            for k in range(len(group)):
                place += 1
                strict[group[(k + turn) % len(group)]] = place
        rated = model.rate(teams, ranks=strict)
        runs.append([[(p.mu, p.sigma) for p in team] for team in rated])
    count = len(runs)
    result = [
        [
            (
                math.fsum(run[i][k][0] for run in runs) / count,
                math.fsum(run[i][k][1] for run in runs) / count,
            )
            for k in range(len(team))
        ]
        for i, team in enumerate(teams)
    ]

    # Correction 2: identical tied teams leave identical (summed in canonical order).
    for group in groups:
        same: dict = {}
        for i in group:
            same.setdefault(inputs[i], []).append(i)
        for members in same.values():
            if len(members) < 2:
                continue
            averaged = [
                (
                    math.fsum(result[i][k][0] for i in members) / len(members),
                    math.fsum(result[i][k][1] for i in members) / len(members),
                )
                for k in range(len(teams[members[0]]))
            ]
            for i in members:
                result[i] = list(averaged)
    rating = model.rating
    return [[rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in result]


def display_rating(mu: float, sigma: float) -> int:
    """The 1500-centred number shown to players: the conservative estimate mu - 3 sigma."""
    return round(DISPLAY_ALPHA * (mu - 3.0 * sigma) + DISPLAY_TARGET)


def is_provisional(games: int, sigma: float) -> bool:
    """Too few games, or still too uncertain, to show a number ("?")."""
    return games < PROVISIONAL_GAMES or sigma > PROVISIONAL_SIGMA


def _library_teams(teams, model):
    return [[model.rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in teams]


def predict_win(teams, *, model_name: str = "") -> list[float]:
    """openskill's chance of each team finishing first."""
    model = get_model(model_name)
    return list(model.predict_win(_library_teams(teams, model)))


def predict_rank(teams, *, model_name: str = "") -> list[tuple[int, float]]:
    """openskill's predicted (rank, probability) per team."""
    model = get_model(model_name)
    return [tuple(x) for x in model.predict_rank(_library_teams(teams, model))]


def chances_not_durak(teams, *, model_name: str = "") -> list[float]:
    """Each team's chance of NOT finishing last (not being the durak's side).

    Two teams: exactly openskill's `predict_win`. More: openskill's two-team
    prediction for every pair gives the chance that j finishes ahead of i; a
    team's weight for last place is its mean chance of finishing behind each
    opponent, normalised over the teams so that exactly one is last
    (the same construction openskill's `predict_rank` uses for first place).
    """
    if len(teams) < 2:
        raise ValueError("a game needs at least two teams")
    model = get_model(model_name)
    lib = _library_teams(teams, model)
    n = len(lib)
    if n == 2:
        return list(model.predict_win(lib))
    behind = [0.0] * n
    for i in range(n):
        for j in range(i + 1, n):
            p_i_first, p_j_first = model.predict_win([lib[i], lib[j]])
            behind[i] += p_j_first
            behind[j] += p_i_first
    total = math.fsum(behind)
    return [1.0 - b / total for b in behind]
