"""The rules of podkidnoy and perevodnoy Durak: pure Python, no Django, no I/O.

The public face is `__all__`, each name described in docs/engine.md (the rules
themselves in docs/rules.md): everything outside the package imports it from
here, never from its modules, so they may change. The one exception is the
bots (games/bots/), which read the precomputed card tables of `cards` for
speed and change with the engine (docs/engine.md, "Inside the package").
"""

from .actions import Action, parse_action
from .cards import ALL_CARDS, RANK, RED_SUITS, SUIT, SUIT_SYMBOLS, beats, deck, sort_hand, strength
from .deal import DEAL_METHOD, DEAL_METHODS
from .game import Game, event_for
from .refusals import REFUSALS, IllegalAction
from .rules import PEREVODNOY, PODKIDNOY, VARIANTS, Rules

__all__ = [
    "ALL_CARDS",
    "DEAL_METHOD",
    "DEAL_METHODS",
    "PEREVODNOY",
    "PODKIDNOY",
    "REFUSALS",
    "RANK",
    "RED_SUITS",
    "SUIT",
    "SUIT_SYMBOLS",
    "VARIANTS",
    "Action",
    "Game",
    "IllegalAction",
    "Rules",
    "beats",
    "deck",
    "event_for",
    "parse_action",
    "sort_hand",
    "strength",
]
