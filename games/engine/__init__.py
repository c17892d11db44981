"""The rules of podkidnoy and perevodnoy Durak: pure Python, no Django, no I/O.

The public face is described in docs/engine.md (the rules themselves in
docs/rules.md): `Rules`, `Game`, `IllegalAction` (with `.code` and
`.reason`), `REFUSALS` (every refusal code and its English text),
`DEAL_METHOD` (how new games are shuffled, docs/fairness.md), plus `Action`,
the action type `legal_actions` returns, and `event_for`, which redacts an
event for one seat.
"""

from .actions import Action, parse_action
from .cards import ALL_CARDS, RANK, SUIT, SUIT_SYMBOLS, beats, deck, sort_hand, strength
from .deal import DEAL_METHOD, DEAL_METHODS
from .game import Game, event_for
from .refusals import REFUSALS, IllegalAction
from .rules import Rules

__all__ = [
    "ALL_CARDS",
    "DEAL_METHOD",
    "DEAL_METHODS",
    "REFUSALS",
    "RANK",
    "SUIT",
    "SUIT_SYMBOLS",
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
