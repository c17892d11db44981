"""The easy level: the club player's move most of the time, a random legal move otherwise.

A beginner's opponent that still plays sensible Durak (it covers cheaply,
keeps its trumps more often than not) but slips often enough to be beaten.
Like the other levels it keeps no memory: the slip is drawn from a
generator seeded by the bot's seed and the view, so the same view gets the
same answer.
"""

import json
import random

from .heuristic import HeuristicBot


class EasyBot:
    level = "easy"

    def __init__(self, seed=None, slip_rate: float = 0.35):
        if not 0.0 <= slip_rate <= 1.0:
            raise ValueError("The slip rate is a probability, from 0 to 1.")
        self.seed = seed
        self.slip_rate = slip_rate
        self.club_player = HeuristicBot(seed=seed)

    def __repr__(self):
        return f"EasyBot(seed={self.seed!r}, slip_rate={self.slip_rate})"

    def choose(self, view: dict) -> str | None:
        legal = view["legal_actions"]
        if len(legal) <= 1:
            return legal[0] if legal else None
        rng = random.Random(f"{self.seed!r}|{json.dumps(view, sort_keys=True)}")
        if rng.random() < self.slip_rate:
            return legal[rng.randrange(len(legal))]
        return self.club_player.choose(view)
