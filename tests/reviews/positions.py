"""Positions built by hand for the review tests (rule ids R1-R27 from docs/rules.md)."""

from __future__ import annotations

import json

from games import engine


def endgame(attacker_hand, defender_hand, table, *, trump="H", trump_card="9H", stock=()):
    """A 2-player podkidnoy position: seat 0 attacks with `table`'s cards, seat 1
    defends; `stock` (face-up trump card last) is empty by default; every other
    card of the 36-card deck is discarded."""
    rules = engine.Rules(players=2)
    on_table = [c for pair in table for c in pair if c]
    used = set(attacker_hand) | set(defender_hand) | set(on_table) | set(stock)
    discard = [c for c in engine.deck(36) if c not in used]
    state = {
        "rules": rules.to_dict(),
        "dealer": 1,
        "trump": trump,
        "trump_card": trump_card,
        "hands": [list(attacker_hand), list(defender_hand)],
        "stock": list(stock),
        "discard": discard,
        "table": [list(p) for p in table],
        "attacker": 0,
        "defender": 1,
        "taking": False,
        "passed": [],
        "first_bout": False,
        "places": [],
        "left_before_bout": 0,
        "known": [[], []],
        "shown": [],
        "transferrers": [],
        "stock_touched": True,
        "over": False,
        "durak": None,
        "losers": [],
        "lowest_trump": None,
    }
    return engine.Game.from_json(json.dumps(state))
