"""The rules of podkidnoy and perevodnoy Durak: pure Python, no Django, no I/O.

The public face is fixed in shared/engine-contract.md: `Rules`, `Game`,
`IllegalAction` (plus `Action`, the action type `legal_actions` returns, and
`event_for`, which redacts an event for one seat).
"""

from .actions import Action, IllegalAction, parse_action
from .cards import ALL_CARDS, RANK, SUIT, SUIT_SYMBOLS, beats, deck, sort_hand, strength
from .game import Game, event_for
from .rules import Rules

__all__ = [
    "ALL_CARDS",
    "Action",
    "Game",
    "IllegalAction",
    "RANK",
    "Rules",
    "SUIT",
    "SUIT_SYMBOLS",
    "beats",
    "deck",
    "event_for",
    "parse_action",
    "sort_hand",
    "strength",
]
