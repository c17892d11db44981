"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013): one rating period.

Pure Python, no Django. The rating study (bench/study.py) rates a Durak game as
one rating period per player, the results being one per opponent at the table
(pairwise). `tests/bench/test_glicko2.py` checks the paper's worked example.

    rating = Glicko2Rating()                         # 1500, RD 350, volatility 0.06
    new = rate(rating, [(opponent, score), ...], tau=0.5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178  # Glicko-2's internal scale: 400 / ln 10
START_RATING = 1500.0
START_RD = 350.0
START_VOLATILITY = 0.06
EPSILON = 0.000001  # convergence of the volatility iteration (the paper's value)


@dataclass(frozen=True, slots=True)
class Glicko2Rating:
    rating: float = START_RATING
    rd: float = START_RD
    volatility: float = START_VOLATILITY

    @property
    def mu(self) -> float:
        return (self.rating - START_RATING) / SCALE

    @property
    def phi(self) -> float:
        return self.rd / SCALE


def g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    """E(mu, mu_j, phi_j): the chance of beating opponent j, on the internal scale."""
    return 1.0 / (1.0 + math.exp(-g(phi_j) * (mu - mu_j)))


def _new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois algorithm on f(x) = 0, x = ln(sigma'^2)."""
    a = math.log(sigma * sigma)
    delta2, phi2 = delta * delta, phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(player: Glicko2Rating, results, tau: float = 0.5, weight: float = 1.0) -> Glicko2Rating:
    """The player's rating after one rating period.

    `results`: (opponent Glicko2Rating, score) with score 1 for a win, 0.5 a tie, 0 a loss.
    `weight` (the study's option, 1 in the paper) counts each result as that share of a game:
    the pairs of one multi-player game are not independent games. With no results only
    the deviation grows (step 6 of the paper)."""
    mu, phi, sigma = player.mu, player.phi, player.volatility
    if not results:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Glicko2Rating(player.rating, min(phi_star * SCALE, START_RD), sigma)
    v_inverse = 0.0
    improvement = 0.0
    for opponent, score in results:
        g_j = g(opponent.phi)
        e = 1.0 / (1.0 + math.exp(-g_j * (mu - opponent.mu)))
        v_inverse += weight * g_j * g_j * e * (1.0 - e)
        improvement += weight * g_j * (score - e)
    v = 1.0 / v_inverse
    delta = v * improvement
    sigma_new = _new_volatility(delta, phi, v, sigma, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Glicko2Rating(SCALE * mu_new + START_RATING, SCALE * phi_new, sigma_new)
