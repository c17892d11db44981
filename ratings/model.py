"""The rating mathematics of one game: pure functions, no Django.

Everything the site computes about skill goes through this module, and the
model is set up in ONE place, here: TrueSkill (Herbrich, Minka and Graepel,
2006; the `trueskill` package's own `TrueSkill(...).rate`) with `BETA`, `TAU`
and `DRAW_PROBABILITY` below, the model that predicted simulated Durak results
best in the wider study (docs/ratings.md, "The wider study" and "The winner,
and why"). The rest of the ratings app and the rating study only call:

- `rate(teams, ranks)`: one game. `teams` is a list of teams, each a list of
  `(mu, sigma)` per player; `ranks` gives each team's place (lower is better,
  equal ranks are a tie). Returns the new `(mu, sigma)` per player, in the
  same shape. Deterministic and symmetric (see "Ties" below).
- `display_rating(mu, sigma)`: the number players see (Elo-like, 1500-centred).
- `is_provisional(sigma)`: shown with "?" while true (by uncertainty alone).
- `repeat_weight(k)`, `weighted(before, rated, weight)`: how much a repeated
  game between the same players counts (the ledger counts the repeats).
- `chance_ahead(a, b)`, `chances_durak(teams)`, `chance_range(teams, i)`: the
  model's own chances, the second one (each side's chance of being the durak)
  shown when a rated game starts.

Strict results. A game without ties is TrueSkill's factor graph on the teams in
order of rank (each team's performance the sum of its members' performances,
each N(skill, BETA^2); neighbours in the order compared). `strict_rate` gives
two-team games (two players, or two pairs: most of a Durak club's games) to
`two_teams`, the closed form of that graph (one truncated Gaussian, computed with
the package's own cdf and pdf: tests/ratings/test_model.py checks it against the
package on random games), and every other game to the package itself.

Ties. TrueSkill can rate a tie natively (a draw margin from a draw
probability), but the package's result then depends on where the tied teams sit
in its chain, and the margin is a second parameter of luck to tune. So ties are
not given to the package as ties (and DRAW_PROBABILITY is 0: a strict result is
"performed better", no margin):

1. A tie is read as "every order of the tied teams is equally likely": the
   game is rated once for each way round of breaking the ties (the tied teams
   rotated through their places, math.lcm of the group sizes runs, so each tied
   team takes each of the shared places equally often) and the new ratings are
   averaged. A tied team therefore ends between the places it shares, never
   below a worse place or above a better one. Games without ties take one run.
   Measured against the package's own draws (draw probability 0.02) on three
   engine-played clubs, the only simulated games with ties (`rating_study --ties`):
   durak log-loss -0.0005 +- 0.0022, pairwise +0.0001 +- 0.0002, no difference;
   so the exact, order-proof averaging stays.
2. A result never depends on seat numbers: the package orders teams by their
   (strict) ranks itself, and tied teams are rotated from a canonical order
   (by their ratings). Teams that tie AND come in with identical ratings leave
   with identical ratings (their results are averaged in canonical order: the
   floating-point sums of the runs may otherwise differ in the last bit).
"""

from __future__ import annotations

import math
from functools import cache
from statistics import NormalDist

MODEL_NAME = "TrueSkill"

# TrueSkill's (and openskill's) starting point: a new player is 25 +- 25/3 ...
MU = 25.0
SIGMA = 25.0 / 3.0
# ... with a performance noise BETA of five times the package's default 25/6: Durak is
# a game of much luck. The wider study (docs/ratings.md) tuned TrueSkill's beta per
# world at first (6.25 in the Plackett-Luce and engine worlds, 12.5 in the Thurstonian
# one, with the chance of before issue 19's fix); the site's own path (ties averaged,
# the chance below with one noise per player) was then tuned on both generative
# worlds' tuning clubs at once (`rating_study --tune-site`: beta 6.25-25, tau 0 or
# 25/300, draw probability 0 or 0.02, chance spread 0.7-2.5; the lowest mean durak
# log-loss): beta 20.8, tau 25/300, draw probability 0, spread 0.8 (mean 0.9558;
# beta 12.5: 0.9573, 16.7: 0.9560, 25: 0.9566: flat above 12.5). TAU, the skill drift
# added before every game, is the package's default 25/300 (0 was no better).
# DRAW_PROBABILITY 0: a strict result means "performed better", without a margin (the
# package never sees a draw, see "Ties"; 0.02 was no better either).
BETA = 25.0 / 6.0 * 5.0
TAU = 25.0 / 300.0
DRAW_PROBABILITY = 0.0

# The display: the conservative estimate mu - 3 sigma on an Elo-like scale.
# TrueSkill's own chance that a settled player finishes ahead of another is the
# normal curve Phi(d / (sqrt 2 * BETA)) of the mu difference d (both sigmas small).
# Elo's "400 points = 10 to 1" fixes one point of it: Phi(z) = 10/11 at
# z = 1.3352, so DISPLAY_ALPHA = 400 / (1.3352 * sqrt 2 * BETA) display points per
# mu makes a 400-point difference 10-to-1 odds exactly. (Elo's curve is logistic,
# so other differences read slightly differently: 200 points are 74 % here, 76 % in
# Elo.) DISPLAY_TARGET puts an average player (mu = MU) with a typical regular's
# deviation SETTLED_SIGMA (the median sigma after 100 games of a variant in a
# simulated club of 200 players, `bench.study.sigma_after_games`: 2.99) at exactly 1500,
# so DISPLAY_ALPHA is 10.17 points per mu and a newcomer (mu - 3 sigma = 0) reads 1337.
TEN_TO_ONE_Z = NormalDist().inv_cdf(10.0 / 11.0)
SETTLED_SIGMA = 3.0
DISPLAY_ALPHA = 400.0 / (TEN_TO_ONE_Z * math.sqrt(2.0) * BETA)
DISPLAY_TARGET = 1500.0 - DISPLAY_ALPHA * (MU - 3.0 * SETTLED_SIGMA)

# Provisional (shown as the number with "?") while the deviation is above
# PROVISIONAL_SIGMA: the rule is the uncertainty itself, not a count of games, so it
# holds alike for every kind of player. In a simulated club (`rating_study --sigmas`:
# 200 players, 20,000 games of the study's table mix, its Thurstonian world, seed 1)
# the median sigma of a variant's players is 7.21 after 5 games, 6.42 after 10, 5.40
# after 20 and 2.99 after 100 (so SETTLED_SIGMA 3.0): with 6.4 the median player is
# established after about 10 games. Taking the places in turn at one table a newcomer
# needs 7 six-player games, 8 four-player, 10 three-player and 15 two-player ones,
# 30 games as one of two partners and 15 for a pair's own rating; one who beats a
# newcomer every two-player game, 18 (each win was expected: it teaches less).
# (`bench.study.games_until_established`; docs/ratings.md, "Provisional".)
PROVISIONAL_SIGMA = 6.4

# What the stored ratings were computed with: a variant whose ratings were made under
# another fingerprint is recomputed from its games (the model or a parameter changed).
MODEL_FINGERPRINT = (
    f"{MODEL_NAME} mu={MU:g} sigma={SIGMA:g} beta={BETA:g} tau={TAU:g} draw_probability={DRAW_PROBABILITY:g}"
    " ties=averaged"
)

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
def environment():
    """The `trueskill.TrueSkill` environment with the site's parameters, built once."""
    import trueskill

    return trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=DRAW_PROBABILITY)


@cache
def _draw_margin(players: int) -> float:
    """The package's draw margin for `players` in two neighbouring teams (next to 0 with DRAW_PROBABILITY 0)."""
    import trueskill

    return trueskill.calc_draw_margin(DRAW_PROBABILITY, players, environment())


# Beyond this many standard deviations of upset the package's cdf underflows (it then refuses
# the game with FloatingPointError); `_v_w` uses the asymptotic series of Mills' ratio there.
_FAR = -30.0


def _v_w(x: float) -> tuple[float, float]:
    """TrueSkill's v = pdf(x) / cdf(x) and w = v (v + x) for a win by x standard deviations,
    with the package's own cdf and pdf (so `two_teams` gives its numbers)."""
    if x >= _FAR:
        env = environment()
        v = env.pdf(x) / env.cdf(x)
        return v, v * (v + x)
    y = -x
    return y + 1.0 / y - 2.0 / y**3 + 10.0 / y**5, 1.0 - 1.0 / y**2 + 6.0 / y**4


def two_teams(teams, ranks) -> list[list[tuple[float, float]]]:
    """TrueSkill for a strict two-team game, in closed form: the package's factor graph with
    two teams has one truncated Gaussian, which expectation propagation solves exactly.

    Every sigma first grows by TAU; c^2 = the sum of both teams' sigma^2 + (players) BETA^2;
    t = (mu_winners - mu_losers) / c; every winner gains sigma^2 / c * v(t - margin / c),
    every loser loses as much of his own, and sigma^2 shrinks by the factor 1 - sigma^2 / c^2 * w.
    """
    tau_squared = TAU * TAU
    winner = 0 if ranks[0] < ranks[1] else 1
    grown = [[(mu, sigma * sigma + tau_squared) for mu, sigma in team] for team in teams]
    players = len(grown[0]) + len(grown[1])
    c_squared = math.fsum(v for team in grown for _, v in team) + players * BETA * BETA
    c = math.sqrt(c_squared)
    lead = math.fsum(mu for mu, _ in grown[winner]) - math.fsum(mu for mu, _ in grown[1 - winner])
    v, w = _v_w((lead - _draw_margin(players)) / c)
    result = []
    for i, team in enumerate(grown):
        sign = 1.0 if i == winner else -1.0
        result.append(
            [
                (mu + sign * variance / c * v, math.sqrt(variance * (1.0 - variance / c_squared * w)))
                for mu, variance in team
            ]
        )
    return result


# The package's own convergence criterion (trueskill.DELTA, `rate`'s min_delta) and its
# limit of ten rounds of the schedule: `many_teams` stops where the package stops.
_MIN_DELTA = 0.0001
_ROUNDS = 10


def _package_cdf_pdf(x: float) -> tuple[float, float]:
    """The package's own cdf and pdf at x (trueskill.backends: its erfc approximation, good to
    about 1e-7), in one call: `many_teams` needs both at every truncation.
    tests/ratings/test_model.py checks them against the package's on a grid."""
    z = abs(x) * _INV_SQRT_2
    t = 1.0 / (1.0 + z / 2.0)
    r = t * math.exp(
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t
                    * (
                        -0.18628806
                        + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))
                    )
                )
            )
        )
    )
    # cdf(x) = erfc(-x / sqrt 2) / 2, and erfc(y) = r for y >= 0, 2 - r below.
    cdf = 0.5 * (r if x <= 0.0 else 2.0 - r)
    return cdf, _INV_SQRT_2PI * math.exp(-(x * x) / 2.0)


_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def many_teams(teams, ranks) -> list[list[tuple[float, float]]]:
    """TrueSkill for a strict game of three or more teams: the package's own factor graph and
    message-passing schedule (`TrueSkill.run_schedule`) written out for a chain of teams, on plain
    (precision, precision-adjusted mean) floats instead of its Gaussian and Variable objects.

    The same messages in the same order, the same stop (the largest change of a difference's
    belief in a round at most _MIN_DELTA, or _ROUNDS rounds) and the package's own cdf and pdf:
    the package's numbers to rounding (tests/ratings/test_model.py compares them), at a tenth
    of its cost. Raises FloatingPointError where the package does (its w outside (0, 1)).

    Teams are taken in rank order: t_k is the k-th team's performance, d_x = t_x - t_(x+1) the
    difference truncated at > margin (the draw margin of probability 0: next to nothing)."""
    order = sorted(range(len(teams)), key=ranks.__getitem__)
    beta_squared = BETA * BETA
    tau_squared = TAU * TAU
    sqrt = math.sqrt
    # Down: prior (sigma grown by TAU), performance (+ BETA^2), team performance (the sum).
    priors = []  # per team in rank order: [(pi, tau) of each member's prior]
    likelihood = []  # per team: [(mean, variance) of each member's performance message]
    down_pi, down_tau = [], []  # the team performance's message from its sum
    for i in order:
        team_priors, team_perf = [], []
        mu_sum = variance_sum = 0.0
        for mu, sigma in teams[i]:
            pi = sqrt(sigma * sigma + tau_squared) ** -2
            tau = pi * mu
            team_priors.append((pi, tau))
            a = 1.0 / (1.0 + beta_squared * pi)
            perf_pi, perf_tau = a * pi, a * tau
            team_perf.append((perf_tau / perf_pi, 1.0 / perf_pi))
            mu_sum += perf_tau / perf_pi
            variance_sum += 1.0 / perf_pi
        priors.append(team_priors)
        likelihood.append(team_perf)
        pi = 1.0 / variance_sum
        down_pi.append(pi)
        down_tau.append(pi * mu_sum)
    diffs = len(order) - 1
    last = diffs - 1
    # Difference x's messages to its left team (l), to its right team (r), to d_x from the sum
    # and from the truncation (c). The package starts them all at N(pi=0, tau=0); a team's
    # belief without difference x's message is its sum's message and the other difference's.
    l_pi, l_tau = [0.0] * diffs, [0.0] * diffs
    r_pi, r_tau = [0.0] * diffs, [0.0] * diffs
    c_pi, c_tau = [0.0] * diffs, [0.0] * diffs
    margins = [_draw_margin(len(teams[order[x]]) + len(teams[order[x + 1]])) for x in range(diffs)]
    sweep = [(x, True) for x in range(last)] + [(x, False) for x in range(last, 0, -1)]
    for _ in range(_ROUNDS):
        delta = 0.0
        for x, rightwards in sweep:
            # The sum down to d_x ...
            if x:
                left_pi, left_tau = down_pi[x] + r_pi[x - 1], down_tau[x] + r_tau[x - 1]
            else:
                left_pi, left_tau = down_pi[0], down_tau[0]
            if x < last:
                right_pi, right_tau = down_pi[x + 1] + l_pi[x + 1], down_tau[x + 1] + l_tau[x + 1]
            else:
                right_pi, right_tau = down_pi[x + 1], down_tau[x + 1]
            pi = 1.0 / (1.0 / left_pi + 1.0 / right_pi)
            tau = pi * (left_tau / left_pi - right_tau / right_pi)
            # ... the truncation up (the package's v_win and w_win) ...
            sqrt_pi = sqrt(pi)
            t = tau / sqrt_pi - margins[x] * sqrt_pi
            cdf, pdf = _package_cdf_pdf(t)
            v = pdf / cdf if cdf else -t
            w = v * (v + t)
            if not 0.0 < w < 1.0:
                raise FloatingPointError("w outside (0, 1): an upset too large to rate")
            old_c_pi, old_c_tau = c_pi[x], c_tau[x]
            new_pi, new_tau = pi / (1.0 - w), (tau + sqrt_pi * v) / (1.0 - w)
            c_pi[x], c_tau[x] = cpi, ctau = new_pi - pi, new_tau - tau
            change = abs(new_tau - (tau + old_c_tau))
            change_pi = sqrt(abs(new_pi - (pi + old_c_pi)))
            if change_pi > change:
                change = change_pi
            if change > delta:
                delta = change
            # ... and up to the next team: t_(x+1) = t_x - d_x rightwards, t_x = d_x + t_(x+1) back.
            # (A truncation that taught nothing, w below rounding, sends pi 0: the package's sum then
            # takes an infinite variance and sends N(pi=0, tau=0) on.)
            if not cpi:
                if rightwards:
                    r_pi[x] = r_tau[x] = 0.0
                else:
                    l_pi[x] = l_tau[x] = 0.0
            elif rightwards:
                pi = 1.0 / (1.0 / left_pi + 1.0 / cpi)
                r_pi[x], r_tau[x] = pi, pi * (left_tau / left_pi - ctau / cpi)
            else:
                pi = 1.0 / (1.0 / cpi + 1.0 / right_pi)
                l_pi[x], l_tau[x] = pi, pi * (ctau / cpi + right_tau / right_pi)
        if delta <= _MIN_DELTA:
            break
    # Both ends up: t_0 = d_0 + t_1 and t_last+1 = t_last - d_last.
    if c_pi[0]:
        right_pi, right_tau = (down_pi[1] + l_pi[1], down_tau[1] + l_tau[1]) if last else (down_pi[1], down_tau[1])
        pi = 1.0 / (1.0 / c_pi[0] + 1.0 / right_pi)
        l_pi[0], l_tau[0] = pi, pi * (c_tau[0] / c_pi[0] + right_tau / right_pi)
    else:
        l_pi[0] = l_tau[0] = 0.0
    if c_pi[last]:
        left_pi, left_tau = (
            (down_pi[last] + r_pi[last - 1], down_tau[last] + r_tau[last - 1]) if last else (down_pi[0], down_tau[0])
        )
        pi = 1.0 / (1.0 / left_pi + 1.0 / c_pi[last])
        r_pi[last], r_tau[last] = pi, pi * (left_tau / left_pi - c_tau[last] / c_pi[last])
    else:
        r_pi[last] = r_tau[last] = 0.0

    # Up: each member's performance from the team's (less the other members'), then his skill.
    result: list = [None] * len(teams)
    for k, i in enumerate(order):
        up_pi = (l_pi[k] if k < diffs else 0.0) + (r_pi[k - 1] if k else 0.0)
        up_tau = (l_tau[k] if k < diffs else 0.0) + (r_tau[k - 1] if k else 0.0)
        members = likelihood[k]
        rated = []
        for j, (prior_pi, prior_tau) in enumerate(priors[k]):
            if not up_pi:  # nothing learnt about this team (as the package: an infinite variance)
                rated.append((prior_tau / prior_pi, sqrt(1.0 / prior_pi)))
                continue
            mu, variance = up_tau / up_pi, 1.0 / up_pi
            for m, (perf_mu, perf_variance) in enumerate(members):
                if m != j:
                    mu -= perf_mu
                    variance += perf_variance
            pi = 1.0 / variance
            a = 1.0 / (1.0 + beta_squared * pi)
            new_pi, new_tau = prior_pi + a * pi, prior_tau + a * pi * mu
            rated.append((new_tau / new_pi, sqrt(1.0 / new_pi)))
        result[i] = rated
    return result


def library_rate(teams, ranks) -> list[list[tuple[float, float]]]:
    """The package's own `TrueSkill(...).rate` on plain `(mu, sigma)` tuples (ranks as given)."""
    import trueskill

    rating = trueskill.Rating
    rated = environment().rate([tuple(rating(mu, sigma) for mu, sigma in team) for team in teams], ranks=list(ranks))
    return [[(r.mu, r.sigma) for r in team] for team in rated]


def strict_rate(teams, ranks) -> list[list[tuple[float, float]]]:
    """TrueSkill for STRICT ranks (no two equal): `two_teams` for two teams, the package for more.

    An upset the package cannot compute (FloatingPointError: beyond about 30 standard
    deviations, far outside any real table) teaches nothing: only the drift TAU is added."""
    if len(teams) == 2:
        return two_teams(teams, ranks)
    try:
        return many_teams(teams, ranks)
    except FloatingPointError:
        return [[(mu, math.sqrt(sigma * sigma + TAU * TAU)) for mu, sigma in team] for team in teams]


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


def rate(teams, ranks, *, model_name: str = "", strict=None) -> list[list[tuple[float, float]]]:
    """New `(mu, sigma)` for every player of one game (see the module docstring). Inputs are not changed.

    `strict` rates a game of strict ranks (default `strict_rate`, the site's TrueSkill); the
    rating study passes other models' raters to give them the same tie treatment. `model_name`
    is kept for callers that name the model: only the site's (`MODEL_NAME` or "") is accepted."""
    if model_name not in ("", MODEL_NAME):
        raise ValueError(f"the site rates with {MODEL_NAME}, not {model_name!r}")
    _check(teams, ranks)
    strict = strict or strict_rate
    tied: dict = {}
    for i, rank in enumerate(ranks):
        tied.setdefault(rank, []).append(i)
    if len(tied) == len(teams):
        # No tie: the teams are taken in order of rank, so the call order (the seats)
        # cannot change the result.
        return strict(teams, ranks)

    # Correction 1: every tie broken each way round (the tied teams, in a canonical
    # order, rotated through their places), the results averaged.
    inputs = [tuple(team) for team in teams]
    keys = [tuple(sorted(team)) for team in inputs]
    groups = [sorted(tied[rank], key=lambda i: (keys[i], i)) for rank in sorted(tied)]
    runs = []
    for turn in range(math.lcm(*(len(group) for group in groups))):
        order = [0] * len(teams)
        place = 0
        for group in groups:
            for k in range(len(group)):
                place += 1
                order[group[(k + turn) % len(group)]] = place
        runs.append(strict(teams, order))
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


def chance_ahead(team_a, team_b) -> float:
    """TrueSkill's own chance that `team_a` finishes ahead of `team_b`.

    Each player performs at N(mu, sigma^2 + BETA^2), a team at the sum of its members'
    performances, so the difference is normal with mean sum(mu_a) - sum(mu_b) and
    variance sum(sigma^2) + (players) BETA^2 over both teams: the likelihood the
    update is built on.
    """
    mu = math.fsum(mu for mu, _ in team_a) - math.fsum(mu for mu, _ in team_b)
    players = len(team_a) + len(team_b)
    c = math.sqrt(math.fsum(s * s for _, s in team_a) + math.fsum(s * s for _, s in team_b) + players * BETA * BETA)
    return 0.5 * math.erfc(-mu / c / math.sqrt(2.0))


# The durak's chance, in TrueSkill's own (normal) form: each player performs at
# N(mu, sigma^2 + PERFORMANCE_SD^2) (the skill's own uncertainty included, so a
# newcomer's wide belief is not read as a sure thing), a side at the sum of its
# members' performances, the lowest side is the durak. A side of n players thus has
# the variance sum(sigma^2) + n * PERFORMANCE_SD^2: each partner brings his own luck.
# (Before issue 19's fix a side had one noise whatever its size, and pairs were shown
# too sure a chance: in the wider study, pairs shown 8-14 % lost 21-34 % of the time.)
# PERFORMANCE_SD = CHANCE_SPREAD * BETA. The spread was tuned with BETA on both generative
# worlds' tuning clubs (`rating_study --tune-site`: 0.8, one spread for both; the worlds
# alone chose 0.8 and 0.9), and tests/ratings/test_shown_honestly.py and
# tests/ratings/test_model.py check the calibration on simulated games (2v2 included).
# In the wider study, 2v2 sides shown 10-20 % lost 17 % (Plackett-Luce world) and 22 %
# (Thurstonian) of the time; with one noise per side, from the same ratings, sides shown
# 7-8 % lost 17-22 % (docs/ratings.md, "The winner, and why").
CHANCE_SPREAD = 0.8
PERFORMANCE_SD = CHANCE_SPREAD * BETA
_GRID = 161  # points of the integral over one side's performance, -8..8 sd
_GRID_Z = [-8.0 + 16.0 * k / (_GRID - 1) for k in range(_GRID)]
_GRID_W = [math.exp(-z * z / 2.0) * (16.0 / (_GRID - 1)) / math.sqrt(2.0 * math.pi) for z in _GRID_Z]


def side_performance(team) -> tuple[float, float]:
    """A side's mean performance and its sd: its members' mu summed, and their sigma^2 summed
    with one PERFORMANCE_SD^2 per member."""
    mu = math.fsum(mu for mu, _ in team)
    return mu, math.sqrt(math.fsum(s * s for _, s in team) + len(team) * PERFORMANCE_SD * PERFORMANCE_SD)


def chances_durak(teams) -> list[float]:
    """Each side's chance of being the durak's side (finishing last); they sum to 1.

    P(i last) = E over i's performance x of prod_{j != i} P(j performs above x),
    sides performing at N(mu, sd^2) of `side_performance`, the expectation taken
    on a fixed grid (the results are then normalised so that rounding of the
    integral cannot make them sum to anything but 1). Checked for calibration on
    simulated games rated by the site's own code (tests/ratings/test_shown_honestly.py,
    tests/ratings/test_model.py for the 2v2 case).
    """
    if len(teams) < 2:
        raise ValueError("a game needs at least two teams")
    _check(teams, [1] * len(teams))
    sides = [side_performance(team) for team in teams]
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
