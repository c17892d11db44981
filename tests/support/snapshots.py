"""What a seat may see, and table snapshots built by hand around an engine position."""

from __future__ import annotations

import re

from games import engine

# A card code standing alone (not part of a longer word): "6S", "10H", "QD".
CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([SHDC])(?![0-9A-Za-z])")


def card_codes(text: str) -> set[str]:
    return {rank + suit for rank, suit in CARD_RE.findall(text)}


def visible_now(position: engine.Game, seat: int | None) -> set[str]:
    """The cards `seat` may see in this position (own hand, table, face-up trump, known cards)."""
    view = position.view(seat)
    cards = set(view["hand"] or [])
    cards |= {c for pair in view["table"] for c in pair if c}
    if view["trump_card"]:
        cards.add(view["trump_card"])
    for s in view["seats"]:
        cards |= set(s["known"])
    return cards


def event_cards(events, seat: int | None) -> set[str]:
    """Card codes of the events as `seat` is told of them (private lists redacted)."""
    cards = set()
    for event in events:
        event = engine.event_for(event, seat)
        for key in ("card", "target", "took"):
            if isinstance(event.get(key), str):
                cards.add(event[key])
        cards |= set(event.get("cards") or [])
    return cards


def snapshot_for(
    position: engine.Game,
    *,
    table_id=1,
    game_id=7,
    names=None,
    status="playing",
    host_id=None,
    is_private=False,
    deadline=None,
    bot_levels=None,
    result=None,
    seed=None,
):
    """A table_snapshot-shaped dict around an engine position (no database)."""
    n = position.n
    names = names or [f"user{i}" for i in range(n)]
    bot_levels = bot_levels or {}
    seats = [
        {
            "number": i,
            "user_id": None if i in bot_levels else 100 + i,
            "name": "" if i in bot_levels else names[i],
            "bot_level": bot_levels.get(i, ""),
        }
        for i in range(n)
    ]
    return {
        "table": {
            "id": table_id,
            "status": "finished" if status == "finished" else "playing",
            "variant": position.rules.variant,
            "rules": position.rules.to_dict(),
            "seats_count": n,
            "turn_seconds": 30,
            "is_private": is_private,
            "rated": False,
            "bot_level": "",
            "host_id": host_id if host_id is not None else 100,
            "host_name": names[0],
        },
        "seats": seats,
        "game": {
            "id": game_id,
            "number": 1,
            "status": status,
            "seed_hash": "ab" * 32,
            "seed": seed,
            "move_count": 0,
            "state_json": position.to_json(),
            "deadline": deadline,
            "turn_seconds": 30,
            "result": result,
            "seats": [dict(s, autopilot=False, abandoned=False, place=None) for s in seats],
        },
    }
