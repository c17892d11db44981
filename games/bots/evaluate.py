"""Valuing every legal action of one decision from one seat's view (game reviews).

`evaluate(view)` estimates, for each action in `view["legal_actions"]`, the
chance that the seat's side is not the loser if it plays that action and
then everybody plays like the club player (`HeuristicBot`): the same
determinized Monte Carlo the searching levels use (`search.DealSampler`
deals the unseen cards consistently with the view), with every action tried
on the same deals, so that differences between actions are paired and a few
hundred deals separate them. A draw counts 1/2; partners score as a pair.

It reads nothing but the view: two positions that look the same to the seat
get the same values, whatever the hidden cards are. The random generator is
seeded from `seed` and the view itself, so an evaluation is repeatable.

Budget: `deals` sampled deals at most and `playouts` playouts at most. After
`PRUNE_AFTER_DEALS` deals, an action clearly behind the best (by
`PRUNE_STANDARD_ERRORS` standard errors of the paired difference) stops being
played, except the actions named in `keep` (a review keeps the move that was
played): its value is then the mean over the deals it was played on.
`deadline` (a `clock()` reading, `time.perf_counter` by default) ends the
sampling between two deals once it has passed, after one deal at least: the
values are then those of the deals played (`cut` is true). A review's part
uses it so that its time budget holds whatever one deal's playouts cost.

Plain synchronous CPU work of bounded length: call it in a worker.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass

from .heuristic import HeuristicBot
from .search import DealSampler, playout

PRUNE_AFTER_DEALS = 24
PRUNE_STANDARD_ERRORS = 3.0


@dataclass(frozen=True)
class Evaluation:
    """The values of one decision's legal actions (chance of not losing, 0 to 1)."""

    values: dict[str, float]
    # Paired playout scores per action: scores[a][i] is the playout on deal i (shorter if pruned).
    scores: dict[str, list[float]]
    deals: int
    playouts: int
    cut: bool = False  # stopped by the deadline before its budget of deals and playouts

    @property
    def best(self) -> str:
        """The action with the highest value (the first of equals, in the order of the legal actions)."""
        top = max(self.values.values())
        return next(a for a, v in self.values.items() if v >= top - 1e-12)

    def drop(self, action: str) -> float:
        """How much the chance falls if `action` is played instead of the best one."""
        return self.values[self.best] - self.values[action]

    def standard_error(self, action: str) -> float:
        """The standard error of `drop(action)`, from the deals both actions were played on."""
        best = self.best
        if action == best:
            return 0.0
        pairs = list(zip(self.scores[best], self.scores[action]))
        n = len(pairs)
        if n < 2:
            return 1.0
        diffs = [b - a for b, a in pairs]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return math.sqrt(var / n)


def evaluate(
    view: dict,
    *,
    deals: int = 300,
    playouts: int | None = None,
    seed=0,
    keep=(),
    deadline: float | None = None,
    clock=time.perf_counter,
) -> Evaluation | None:
    """The value of each legal action of `view`; None when there is nothing to choose
    (fewer than two legal actions) or the view admits no deal."""
    legal = [str(a) for a in view["legal_actions"]]
    if len(legal) < 2:
        return None
    if deals < 1:
        raise ValueError("An evaluation needs at least one deal.")
    sampler = DealSampler(view)
    if not sampler.consistent:
        return None
    limit = playouts if playouts is not None else deals * len(legal)
    rng = random.Random(f"review|{seed!r}|{json.dumps(view, sort_keys=True)}")
    policy = HeuristicBot(seed=seed)
    seat = view["seat"]
    kept = set(keep) & set(legal)
    alive = list(legal)
    scores: dict[str, list[float]] = {a: [] for a in legal}
    done = spent = 0
    cut = False
    while done < deals and spent + len(alive) <= limit:
        if deadline is not None and done and clock() >= deadline:
            cut = True
            break
        game = sampler.sample(rng)
        for action in alive:
            scores[action].append(playout(game.copy(), seat, action, policy))
        spent += len(alive)
        done += 1
        if done >= PRUNE_AFTER_DEALS and len(alive) > 1 + len(kept):
            alive = _prune(alive, scores, kept)
    if done == 0:
        return None
    values = {a: sum(s) / len(s) for a, s in scores.items()}
    return Evaluation(values=values, scores=scores, deals=done, playouts=spent, cut=cut)


def _prune(alive: list, scores: dict, kept: set) -> list:
    """Drop the actions clearly behind the best on the same deals (never the kept ones)."""
    rounds = len(scores[alive[0]])
    means = {a: sum(scores[a][-rounds:]) / rounds for a in alive}
    best = max(alive, key=means.__getitem__)
    left = []
    for action in alive:
        if action == best or action in kept:
            left.append(action)
            continue
        diffs = [x - y for x, y in zip(scores[action][-rounds:], scores[best][-rounds:])]
        mean = sum(diffs) / rounds
        var = sum((d - mean) ** 2 for d in diffs) / (rounds - 1)
        se = math.sqrt(var / rounds)
        if mean + PRUNE_STANDARD_ERRORS * max(se, 1.0 / rounds) >= 0:
            left.append(action)
    return left
