"""The rating mathematics of one game: pure functions, no Django.

Everything the site computes about skill goes through this module, and the
model is built in ONE place, `get_model`: openskill's `MODEL_NAME`
(BradleyTerryFull) with `BETA` = 12.5, the combination that predicted simulated
Durak results best among what the site can run (docs/ratings.md, "The wider
study"; before it, beta 25 from the first study). The rest of the
ratings app and the rating study only call:

- `rate(teams, ranks)`: one game. `teams` is a list of teams, each a list of
  `(mu, sigma)` per player; `ranks` gives each team's place (lower is better,
  equal ranks are a tie). Returns the new `(mu, sigma)` per player, in the
  same shape. Deterministic and symmetric (see "Ties" below).
- `display_rating(mu, sigma)`: the number players see (Elo-like, 1500-centred).
- `is_provisional(sigma)`: shown with "?" while true (by uncertainty alone).
- `repeat_weight(k)`, `weighted(before, rated, weight)`: how much a repeated
  game between the same players counts (the ledger counts the repeats).
- `chance_ahead(a, b)`, `chances_durak(teams)`: the model's own chances,
  the second one (each side's chance of being the durak) shown when a rated game starts.

Ties. openskill.py issue 173 reported a 1v1 tie that moved two equal players
differently (6.1.x), and openskill.js issue 332 a multi-way tie ranked below
a worse place. With openskill 6.2 BradleyTerryFull keeps the order in every
tie the study checked (PlackettLuce does not), but a tie given to the library
as a tie still depends on the order of the teams in the last bit of a float.
So ties are not given to the library as ties:

1. A tie is read as "every order of the tied teams is equally likely": the
   game is rated once for each way round of breaking the ties (the tied teams
   rotated through their places, math.lcm of the group sizes runs, so each tied
   team takes each of the shared places equally often) and the new ratings are
   averaged. A tied team therefore ends between the places it shares, never
   below a worse place or above a better one. Games without ties take one run,
   exactly the library's own result. (In the study this made no measurable
   difference to the predictions: held-out log-loss 0.6298 both ways.)
2. A result never depends on seat numbers: the library orders teams by their
   (strict) ranks itself, and tied teams are rotated from a canonical order
   (by their ratings). Teams that tie AND come in with identical ratings leave
   with identical ratings (their results are averaged in canonical order: the
   floating-point sums of the runs may otherwise differ in the last bit).
"""

from __future__ import annotations

import math
from functools import cache

MODEL_NAME = "BradleyTerryFull"

# openskill's starting point: a new player is 25 +- 25/3 ...
MU = 25.0
SIGMA = 25.0 / 3.0
# ... but three times its default performance noise (25/6): Durak is a game of much
# luck, and with the default beta every model was over-confident. The wider study
# (docs/ratings.md, "The wider study": two generative worlds and the engine's games,
# every model tuned on a club of its own) chose beta 12.5 for BradleyTerryFull in all
# three worlds; it beat the first study's beta 25 in the "who is the durak" log-loss
# by 0.006-0.013, significantly in both generative worlds. tau stays the library's 25/300.
BETA = 12.5

# The display: the conservative estimate mu - 3 sigma on an Elo-like scale.
# Two settled players are about sqrt(2) * BETA apart in the model's logistic
# chance, so DISPLAY_ALPHA = 400 / ln 10 / (sqrt 2 * BETA) (about 9.8 points per
# mu) makes a 400-point difference 10-to-1 odds, as in Elo. DISPLAY_TARGET puts
# an average player (mu = MU) with a typical regular's deviation SETTLED_SIGMA
# (the median sigma after 100 games in a simulated club of 200 players) at exactly 1500.
SETTLED_SIGMA = 4.1
DISPLAY_ALPHA = 400.0 / math.log(10.0) / (math.sqrt(2.0) * BETA)
DISPLAY_TARGET = 1500.0 - DISPLAY_ALPHA * (MU - 3.0 * SETTLED_SIGMA)

# Provisional (shown as the number with "?") while the deviation is above
# PROVISIONAL_SIGMA: the rule is the uncertainty itself, not a count of games, so it
# holds alike for a regular of six-player tables (about 5 games), of two-player
# tables (about 23), of partners games (about 24) and for a pair (about 23).
# With beta = 12.5 the median sigma of a simulated club is 7.59 after 5 games,
# 7.03 after 10, 6.27 after 20: the median player is established after about 8
# games (with beta 25 and 8.0 it was about 10). A player who wins every game learns
# the model less per game (each win was expected): two-player, about 34 games.
# See docs/ratings.md ("Provisional").
PROVISIONAL_SIGMA = 7.2

# Repeated games (docs/ratings.md, "Repeated games"): the k-th game among the same
# set of players within REPEAT_WINDOW_HOURS counts 1/k of a game, and from the
# (REPEAT_LIMIT + 1)-th on it is not rated at all. The counting is
# `ratings.ledger`'s; the weighting of one update is `weighted` below.
REPEAT_WINDOW_HOURS = 24
REPEAT_LIMIT = 5


def repeat_weight(k: int) -> float:
    """How much the k-th game (k >= 1) among the same players within the window counts."""
    if k < 1:
        raise ValueError(f"k counts games from 1, not {k}")
    return 0.0 if k > REPEAT_LIMIT else 1.0 / k


def weighted(before: tuple[float, float], rated: tuple[float, float], weight: float) -> tuple[float, float]:
    """The part `weight` (0..1) of one update: mu and sigma each move that share of the way
    from `before` to what the game alone would give (`rated`); weight 1 is the update itself."""
    if weight == 1.0:
        return rated
    return (before[0] + weight * (rated[0] - before[0]), before[1] + weight * (rated[1] - before[1]))


@cache
def get_model(name: str = ""):
    """The openskill model instance for `name` (default `MODEL_NAME`), built once, with the site's parameters."""
    from openskill import models

    cls = getattr(models, name or MODEL_NAME)
    return cls(mu=MU, sigma=SIGMA, beta=BETA)


_constants: tuple[float, float] | None = None


def _library_constants() -> tuple[float, float]:
    """openskill's own tau and kappa for the site's model, read once from the library."""
    global _constants
    model = get_model()
    _constants = (model.tau, model.kappa)
    return _constants


def bradley_terry_full(teams, ranks) -> list[list[tuple[float, float]]]:
    """openskill's `BradleyTerryFull(mu=MU, sigma=SIGMA, beta=BETA).rate(teams, ranks=ranks)` for
    STRICT ranks (no two equal), on plain `(mu, sigma)` tuples.

    The same arithmetic in the same order as openskill 6.2's implementation
    (Weng and Lin's Algorithm 1: tau added to every sigma, the teams taken in
    order of rank, each team's mu and sigma^2 summed over its players from the
    highest ordinal down, gamma = sigma_team / c), so the results are the
    library's to the last bit (tests/ratings/test_model.py compares them on
    random games). It exists because the library's `rate` deep-copies its
    input and gives every rating a fresh uuid4, which took half the time of
    a full recomputation (docs/benchmarks.md).
    """
    tau, kappa = _constants or _library_constants()
    tau_squared = tau * tau
    two_beta_squared = 2 * BETA**2
    sqrt, exp = math.sqrt, math.exp
    count = len(teams)
    order = sorted(range(count), key=ranks.__getitem__) if count > 2 else ([0, 1] if ranks[0] <= ranks[1] else [1, 0])
    corrected = []
    sums = []
    for i in order:
        team = teams[i]
        if len(team) == 1:
            mu, sigma = team[0]
            sigma = sqrt(sigma * sigma + tau_squared)
            corrected.append(((mu, sigma),))
            sums.append((0.0 + mu, 0.0 + sigma**2))
            continue
        team = [(mu, sqrt(sigma * sigma + tau_squared)) for mu, sigma in team]
        corrected.append(team)
        mu_summed = 0.0
        sigma_squared_summed = 0.0
        # (sorted by ordinal, highest first, as the library sums them; a stable sort)
        for mu, sigma in sorted(team, key=lambda r: r[0] - 3.0 * r[1], reverse=True):
            mu_summed += mu
            sigma_squared_summed += sigma**2
        sums.append((mu_summed, sigma_squared_summed))
    # c is symmetric (a + b == b + a in floating point): one square root per pair of teams.
    c = {}
    for i in range(count):
        sigma_squared_i = sums[i][1]
        for q in range(i + 1, count):
            c[i, q] = c[q, i] = sqrt(sigma_squared_i + sums[q][1] + two_beta_squared)
    result = [None] * count
    for i, (mu_i, sigma_squared_i) in enumerate(sums):
        omega = 0.0
        delta = 0.0
        sigma_i = sqrt(sigma_squared_i)
        for q in range(count):
            if q == i:
                continue
            c_iq = c[i, q]
            piq = 1 / (1 + exp((sums[q][0] - mu_i) / c_iq))
            sigma_squared_to_ciq = sigma_squared_i / c_iq
            omega += sigma_squared_to_ciq * ((1.0 if q > i else 0.0) - piq)
            delta += ((sigma_i / c_iq * sigma_squared_to_ciq) / c_iq) * piq * (1 - piq)
        team = []
        for mu, sigma in corrected[i]:
            share = sigma**2 / sigma_squared_i
            team.append((mu + share * omega, sigma * sqrt(max(1 - share * delta, kappa))))
        result[order[i]] = team
    return result


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


def _strict_rater(model_name: str):
    """Rating for strict ranks on plain tuples: `bradley_terry_full` for the site's model,
    the library itself for any other (the study's comparisons)."""
    if (model_name or MODEL_NAME) == "BradleyTerryFull":
        return bradley_terry_full
    model = get_model(model_name)

    def library_rate(teams, ranks):
        rating = model.rating
        rated = model.rate([[rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in teams], ranks=list(ranks))
        return [[(p.mu, p.sigma) for p in team] for team in rated]

    return library_rate


def rate(teams, ranks, *, model_name: str = "") -> list[list[tuple[float, float]]]:
    """New `(mu, sigma)` for every player of one game (see the module docstring). Inputs are not changed."""
    _check(teams, ranks)
    strict_rate = _strict_rater(model_name)
    tied: dict = {}
    for i, rank in enumerate(ranks):
        tied.setdefault(rank, []).append(i)
    if len(tied) == len(teams):
        # No tie: the teams are taken in order of rank, so the call order (the seats)
        # cannot change the result.
        return strict_rate(teams, ranks)

    # Correction 1: every tie broken each way round (the tied teams, in a canonical
    # order, rotated through their places), the results averaged.
    inputs = [tuple(team) for team in teams]
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
        runs.append(strict_rate(teams, strict))
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
    return result


def display_rating(mu: float, sigma: float) -> int:
    """The 1500-centred number shown to players: the conservative estimate mu - 3 sigma."""
    return round(DISPLAY_ALPHA * (mu - 3.0 * sigma) + DISPLAY_TARGET)


def is_provisional(sigma: float) -> bool:
    """Still too uncertain for the number to be trusted: shown with "?" (PROVISIONAL_SIGMA)."""
    return sigma > PROVISIONAL_SIGMA


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


def chance_ahead(team_a, team_b) -> float:
    """The model's own chance that `team_a` finishes ahead of `team_b` (a tie counting half).

    The Bradley-Terry likelihood the update is built on: logistic in
    (mu_a - mu_b) / c, c = sqrt(sigma_a^2 + sigma_b^2 + 2 BETA^2), a team's mu and
    sigma^2 being its members' sums. In the study this chance was far better
    calibrated than openskill's `predict_win` (held-out log-loss 0.6298 against
    0.6533), which uses the normal curve whatever the model.
    """
    mu = math.fsum(mu for mu, _ in team_a) - math.fsum(mu for mu, _ in team_b)
    c = math.sqrt(math.fsum(s * s for _, s in team_a) + math.fsum(s * s for _, s in team_b) + 2.0 * BETA * BETA)
    return 1.0 / (1.0 + math.exp(-mu / c))


# The durak's chance is computed in the Thurstonian form of the model: each side
# performs at N(mu, sigma^2 + PERFORMANCE_SD^2) (the skill's own uncertainty
# included, so a newcomer's wide belief is not read as a sure thing), the lowest
# performance is the durak. PERFORMANCE_SD is the normal curve that matches the
# model's logistic pairwise chance for settled players: logistic(x) is close to
# Phi(x / 1.702), so two sides sqrt(2) BETA apart in the logistic read as
# sqrt(2) * 1.702 BETA in the normal one. CHANCE_SPREAD widens it once more:
# the pairwise update counts every pair of a table as its own evidence, so its mu
# spread out more than the skills behind them (on simulated games the true skill
# rose only 0.65 per point of mu), and chances read straight off them were too
# sure (a pair shown 31 % lost 39 % of the time with beta 25). The wider study tuned the
# spread with the model (0.7 to 2.5 tried, on each world's tuning club): with beta 12.5
# it chose 1.2 in all three worlds (with beta 25 it was 1.4).
LOGISTIC_TO_NORMAL = 1.702
CHANCE_SPREAD = 1.2
PERFORMANCE_SD = CHANCE_SPREAD * LOGISTIC_TO_NORMAL * BETA
_GRID = 161  # points of the integral over one side's performance, -8..8 sd
_GRID_Z = [-8.0 + 16.0 * k / (_GRID - 1) for k in range(_GRID)]
_GRID_W = [math.exp(-z * z / 2.0) * (16.0 / (_GRID - 1)) / math.sqrt(2.0 * math.pi) for z in _GRID_Z]


def _side(team) -> tuple[float, float]:
    """A side's mean performance and its sd (a team: its members' mu and sigma^2 summed, as the update sums them)."""
    mu = math.fsum(mu for mu, _ in team)
    return mu, math.sqrt(math.fsum(s * s for _, s in team) + PERFORMANCE_SD * PERFORMANCE_SD)


def chances_durak(teams) -> list[float]:
    """Each side's chance of being the durak's side (finishing last); they sum to 1.

    P(i last) = E over i's performance x of prod_{j != i} P(j performs above x),
    sides performing at N(mu, sigma^2 + PERFORMANCE_SD^2), the expectation taken
    on a fixed grid (the results are then normalised so that rounding of the
    integral cannot make them sum to anything but 1). With two sides it is the
    normal curve of the model's pairwise chance. Checked for calibration on
    simulated games rated by the site's own code (tests/ratings/test_shown_honestly.py).
    """
    if len(teams) < 2:
        raise ValueError("a game needs at least two teams")
    _check(teams, [1] * len(teams))
    sides = [_side(team) for team in teams]
    raw = []
    for i, (mu_i, sd_i) in enumerate(sides):
        others = [side for j, side in enumerate(sides) if j != i]
        total = 0.0
        for z, w in zip(_GRID_Z, _GRID_W, strict=True):
            x = mu_i + sd_i * z
            above = 1.0
            for mu_j, sd_j in others:
                above *= 0.5 * math.erfc((x - mu_j) / (sd_j * math.sqrt(2.0)))
            total += w * above
        raw.append(total)
    whole = math.fsum(raw)
    return [r / whole for r in raw]


def chance_range(teams, index: int) -> tuple[float, float]:
    """The spread of side `index`'s chance of being the durak over its own uncertainty:
    the chance were its players one sigma better (low end) and one sigma worse (high end).
    Shown beside the chance of a side with a provisional player."""
    better = [list(team) for team in teams]
    worse = [list(team) for team in teams]
    better[index] = [(mu + sigma, sigma) for mu, sigma in teams[index]]
    worse[index] = [(mu - sigma, sigma) for mu, sigma in teams[index]]
    return chances_durak(better)[index], chances_durak(worse)[index]


def whole_percents(chances) -> list[int]:
    """Chances as whole percents that add up to exactly 100 (largest remainders get the rounding)."""
    exact = [100.0 * c for c in chances]
    floors = [math.floor(x) for x in exact]
    short = 100 - sum(floors)
    for k in sorted(range(len(exact)), key=lambda k: (floors[k] - exact[k], k))[:short]:
        floors[k] += 1
    return floors
