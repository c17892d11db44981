"""Copies and the JSON form of a position (an exact round trip, mid-game included)."""

import json

from .rules import Rules


def copy(game):
    """An independent copy: a few list and set copies (search clones millions)."""
    other = game.__class__.__new__(game.__class__)
    other.rules = game.rules
    other.n = game.n
    other._teams = game._teams
    other.trump = game.trump
    other.trump_card = game.trump_card
    other.dealer = game.dealer
    other.hands = [h[:] for h in game.hands]
    other.stock = game.stock[:]
    other.discard_pile = game.discard_pile[:]
    other.pairs = [p[:] for p in game.pairs]
    other.attacker = game.attacker
    other.defender = game.defender
    other.taking = game.taking
    other.passed = set(game.passed)
    other.first_bout = game.first_bout
    other.out = dict(game.out)
    other.left_before_bout = game.left_before_bout
    other.known = [set(k) for k in game.known]
    other.declined = [d[:] for d in game.declined]
    other.shown = set(game.shown)
    other.transferrers = set(game.transferrers)
    other.stock_touched = game.stock_touched
    other.over = game.over
    other.durak = game.durak
    other.losers = game.losers[:]
    other.lowest_trump = game.lowest_trump
    return other


def state(game) -> dict:
    """The whole position as plain JSON values (sets sorted, so equal positions give equal states)."""
    return {
        "rules": game.rules.to_dict(),
        "dealer": game.dealer,
        "trump": game.trump,
        "trump_card": game.trump_card,
        "hands": [list(h) for h in game.hands],
        "stock": list(game.stock),
        "discard": list(game.discard_pile),
        "table": [list(p) for p in game.pairs],
        "attacker": game.attacker,
        "defender": game.defender,
        "taking": game.taking,
        "passed": sorted(game.passed),
        "first_bout": game.first_bout,
        "places": sorted([s, p] for s, p in game.out.items()),
        "left_before_bout": game.left_before_bout,
        "known": [sorted(k) for k in game.known],
        "declined": [list(d) for d in game.declined],
        "shown": sorted(game.shown),
        "transferrers": sorted(game.transferrers),
        "stock_touched": game.stock_touched,
        "over": game.over,
        "durak": game.durak,
        "losers": list(game.losers),
        "lowest_trump": list(game.lowest_trump) if game.lowest_trump else None,
    }


def to_json(game) -> str:
    return json.dumps(state(game), separators=(",", ":"))


def from_json(cls, text: str):
    data = json.loads(text)
    game = cls._blank(Rules.from_dict(data["rules"]), data["dealer"])
    game.trump = data["trump"]
    game.trump_card = data["trump_card"]
    game.hands = [list(h) for h in data["hands"]]
    game.stock = list(data["stock"])
    game.discard_pile = list(data["discard"])
    game.pairs = [list(p) for p in data["table"]]
    game.attacker = data["attacker"]
    game.defender = data["defender"]
    game.taking = data["taking"]
    game.passed = set(data["passed"])
    game.first_bout = data["first_bout"]
    game.out = dict(data["places"])
    game.left_before_bout = data["left_before_bout"]
    game.known = [set(k) for k in data["known"]]
    # Absent from positions saved before the field existed: nothing declined.
    game.declined = [list(d) for d in data.get("declined") or [[] for _ in game.hands]]
    game.shown = set(data["shown"])
    game.transferrers = set(data["transferrers"])
    game.stock_touched = data["stock_touched"]
    game.over = data["over"]
    game.durak = data["durak"]
    game.losers = list(data["losers"])
    game.lowest_trump = tuple(data["lowest_trump"]) if data["lowest_trump"] else None
    return game
