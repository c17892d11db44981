"""Computer players: pure Python, no Django.

A bot sees exactly what a human in its seat sees: the dict `Game.view(seat)`
returns. It answers with one of `view["legal_actions"]` (a text such as
"attack 6S"), or None when that list is empty. It never touches the `Game`
object, so it cannot read hidden cards, and it keeps no memory between calls:
the same view always gets the same answer from bots built with the same seed
(the legacy "random" level aside, which draws from one generator per bot).

    from games.bots import LEVELS, get_bot

    bot = get_bot("hard", seed=7)
    action = bot.choose(game.view(seat))   # only ask a seat in view["to_move"]

Ask a bot only when the game waits for its seat (`seat in game.to_move()`):
the view of a seat that is not awaited may still list optional moves (a
throw-in while the defender thinks, the trump six swap), and a bot always
answers with one of them, since None is reserved for an empty list.
`games.bots.arena` drives whole games this way.

`choose` is synchronous, CPU-bound and bounded: the searching levels think
for up to their time budget (`LEVELS[level]["seconds"]`) and stop. Call it in
a Celery worker (the play service does) or a command, never on an event loop.

Levels, weakest first (`LEVELS`, `BOT_LEVELS`): easy, medium (the club
player), hard (determinized Monte Carlo search, 200 playouts, at most half a
second a move), expert (the same search with 800 playouts and up to two
seconds, and in two-player games exact endgames: once the stock is empty it
solves the position, and with a few cards left in the stock its playouts
solve each sampled deal's endgame; `games/bots/endgame.py`). In arena
matches expert scores about 0.76 against hard (docs/benchmarks.md). The
names of the first bots stay valid (`LEGACY_LEVELS`): existing tables,
the autopilot and tests use "heuristic" (now the same as medium) and "random"
(the uniformly random novice).
"""

from typing import Protocol, runtime_checkable

from .easy import EasyBot
from .heuristic import HeuristicBot
from .random_bot import RandomBot
from .search import SearchBot

# Every level a table may choose, weakest first, with its English label (the
# web layer translates these) and what the bot is.
LEVELS = {
    "easy": {"label": "Easy", "bot": EasyBot, "options": {}},
    "medium": {"label": "Medium", "bot": HeuristicBot, "options": {}},
    "hard": {"label": "Hard", "bot": SearchBot, "options": {"iterations": 200, "seconds": 0.5}},
    "expert": {
        "label": "Expert",
        "bot": SearchBot,
        "options": {"iterations": 800, "seconds": 2.0, "endgame_nodes": 50_000},
    },
}

# The first two levels' names, still accepted everywhere a level is.
LEGACY_LEVELS = {
    "random": {"label": "Novice (random)", "bot": RandomBot, "options": {}},
    "heuristic": {"label": "Medium", "bot": HeuristicBot, "options": {}},
}
ALIASES = {"heuristic": "medium"}

# (level id, English label) of the levels a table offers, weakest first: usable as Django choices.
BOT_LEVELS = [(level, spec["label"]) for level, spec in LEVELS.items()]
# The English label of every level name accepted, legacy names included.
BOT_NAMES = {**{level: spec["label"] for level, spec in LEGACY_LEVELS.items()}, **dict(BOT_LEVELS)}


@runtime_checkable
class Bot(Protocol):
    """What every bot level offers."""

    level: str

    def choose(self, view: dict) -> str | None:
        """One of view["legal_actions"], or None if that list is empty."""
        ...


def is_level(level) -> bool:
    """Is `level` a name `get_bot` accepts (the offered levels and the legacy names)?"""
    return isinstance(level, str) and (level in LEVELS or level in LEGACY_LEVELS)


def canonical_level(level: str) -> str:
    """The offered level a name stands for: "heuristic" is "medium"; others are themselves."""
    return ALIASES.get(level, level)


def get_bot(level: str, seed=None, *, iterations: int | None = None, timed: bool = True) -> Bot:
    """A new bot of `level` (a name from LEVELS or LEGACY_LEVELS); `seed` makes it repeatable.

    For the searching levels, `iterations` replaces the level's playout budget,
    and `timed=False` drops its time budget, so that the bot's play depends on
    nothing but the seed and the view (matches, tests).
    """
    spec = LEVELS.get(level) if isinstance(level, str) else None
    if spec is None and isinstance(level, str):
        spec = LEGACY_LEVELS.get(level)
    if spec is None:
        known = ", ".join(repr(lvl) for lvl in [*LEVELS, *LEGACY_LEVELS])
        raise ValueError(f"Unknown bot level {level!r}: choose one of {known}.")
    options = dict(spec["options"])
    if spec["bot"] is SearchBot:
        options["level"] = level
        if iterations is not None:
            options["iterations"] = iterations
        if not timed:
            options["seconds"] = None
    bot = spec["bot"](seed=seed, **options)
    bot.level = level
    return bot


__all__ = [
    "ALIASES",
    "BOT_LEVELS",
    "BOT_NAMES",
    "LEGACY_LEVELS",
    "LEVELS",
    "Bot",
    "EasyBot",
    "HeuristicBot",
    "RandomBot",
    "SearchBot",
    "canonical_level",
    "get_bot",
    "is_level",
]
