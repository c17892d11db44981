"""The novice: a uniformly random legal action."""

import random


class RandomBot:
    """Picks uniformly among `view["legal_actions"]` with its own seeded generator.

    It never stalls a table: whenever it has a legal action it plays one (a
    pass or a throw-in included, chosen at random like any other move), and
    every action moves the game on, so a game of random bots always ends.
    """

    level = "random"

    def __init__(self, seed=None):
        self.seed = seed
        self.rng = random.Random(seed)

    def choose(self, view: dict) -> str | None:
        legal = view["legal_actions"]
        if not legal:
            return None
        return legal[self.rng.randrange(len(legal))]

    def __repr__(self):
        return f"RandomBot(seed={self.seed!r})"
