"""Judging one decision: pure, no database (the service feeds it the seat's views).

A decision is judged by the chance that the player's side does not lose
(`games.bots.evaluate`: determinized playouts from the seat's view only),
for the move played and for the best legal move. The drop between them is
labelled against the thresholds; a drop within the noise of the sampling
(less than `SIGNIFICANCE` standard errors) is never labelled, so that a
review does not blame a move for the dice of the playouts.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.bots.evaluate import evaluate

SIGNIFICANCE = 2.0

# The defaults of the settings REVIEW_INACCURACY, REVIEW_MISTAKE, REVIEW_BLUNDER,
# REVIEW_DEALS and REVIEW_PLAYOUTS (deals and playouts per decision: about 0.5 ms
# a playout, so a 2-player game's review takes 20-40 s of a worker's CPU).
DEFAULT_THRESHOLDS = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}
DEFAULT_DEALS = 400
DEFAULT_PLAYOUTS = 2400
# Playouts are seeded from this and the view: the same view is judged the same way.
EVALUATION_SEED = 0


@dataclass(frozen=True)
class Thresholds:
    inaccuracy: float = DEFAULT_THRESHOLDS["inaccuracy"]
    mistake: float = DEFAULT_THRESHOLDS["mistake"]
    blunder: float = DEFAULT_THRESHOLDS["blunder"]

    def __post_init__(self):
        if not 0 < self.inaccuracy <= self.mistake <= self.blunder <= 1:
            raise ValueError("Thresholds must satisfy 0 < inaccuracy <= mistake <= blunder <= 1.")

    def label(self, drop: float) -> str:
        """ "blunder", "mistake", "inaccuracy" or "" for a drop in the chance of not losing."""
        if drop >= self.blunder - 1e-9:
            return "blunder"
        if drop >= self.mistake - 1e-9:
            return "mistake"
        if drop >= self.inaccuracy - 1e-9:
            return "inaccuracy"
        return ""


@dataclass(frozen=True)
class Judgement:
    played: str
    best: str
    value_played: float
    value_best: float
    drop: float
    label: str
    cut: bool = False  # judged on the deals that fitted before the deadline (see `judge`)


def judge(
    view: dict,
    played: str,
    thresholds: Thresholds,
    *,
    deals: int = DEFAULT_DEALS,
    playouts: int = DEFAULT_PLAYOUTS,
    seed=EVALUATION_SEED,
    deadline: float | None = None,
) -> Judgement | None:
    """The judgement of playing `played` in `view` (one seat's view); None for a
    decision without a choice (one legal action) or one that cannot be evaluated.

    `deadline` (a `time.perf_counter()` reading) stops the sampling once passed,
    after one deal at least; the judgement is then `cut`: made on fewer deals,
    so fewer drops are significant enough to be labelled."""
    played = str(played)
    if played not in view["legal_actions"]:
        raise ValueError(f"{played!r} is not a legal action of this view.")
    evaluation = evaluate(view, deals=deals, playouts=playouts, seed=seed, keep=[played], deadline=deadline)
    if evaluation is None:
        return None
    drop = max(evaluation.drop(played), 0.0)
    # A drop within the noise of the playouts is no fault of the move played.
    significant = drop > 1e-9 and drop >= SIGNIFICANCE * evaluation.standard_error(played)
    return Judgement(
        played=played,
        best=evaluation.best,
        value_played=evaluation.values[played],
        value_best=evaluation.values[evaluation.best],
        drop=drop,
        label=thresholds.label(drop) if significant else "",
        cut=evaluation.cut,
    )
