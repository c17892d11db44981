"""Computer players: pure Python, no Django.

A bot sees exactly what a human in its seat sees: the dict `Game.view(seat)`
returns. It answers with one of `view["legal_actions"]` (a text such as
"attack 6S"), or None when that list is empty. It never touches the `Game`
object, so it cannot read hidden cards, and it keeps no memory between calls:
the same view always gets the same answer from bots built with the same seed.

    from games.bots import BOT_LEVELS, get_bot

    bot = get_bot("heuristic", seed=7)
    action = bot.choose(game.view(seat))   # only ask a seat in view["to_move"]

Ask a bot only when the game waits for its seat (`seat in game.to_move()`):
the view of a seat that is not awaited may still list optional moves (a
throw-in while the defender thinks, the trump six swap), and a bot always
answers with one of them, since None is reserved for an empty list.
`games.bots.arena` drives whole games this way.
"""

from typing import Protocol, runtime_checkable

from .heuristic import HeuristicBot
from .random_bot import RandomBot

# Ordered weakest first; (level id, human name) pairs, usable as Django choices.
BOT_LEVELS = [
    ("random", "Novice (random)"),
    ("heuristic", "Club player"),
]
BOT_NAMES = dict(BOT_LEVELS)

_CLASSES = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
}


@runtime_checkable
class Bot(Protocol):
    """What every bot level offers."""

    level: str

    def choose(self, view: dict) -> str | None:
        """One of view["legal_actions"], or None if that list is empty."""
        ...


def get_bot(level: str, seed=None) -> Bot:
    """A new bot of `level` (an id from BOT_LEVELS); `seed` makes it repeatable."""
    try:
        cls = _CLASSES[level]
    except (KeyError, TypeError):
        known = ", ".join(repr(lvl) for lvl, _ in BOT_LEVELS)
        raise ValueError(f"Unknown bot level {level!r}: choose one of {known}.") from None
    return cls(seed=seed)


__all__ = ["BOT_LEVELS", "BOT_NAMES", "Bot", "HeuristicBot", "RandomBot", "get_bot"]
