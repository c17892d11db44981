"""What a seat may see: the view of a position and the redaction of events."""

from .cards import sort_hand

PUBLIC = None  # an event whose details every seat and spectator may see


def event_for(event: dict, seat: int | None) -> dict:
    """The event as `seat` (None: a spectator) may see it: private card lists removed."""
    visible_to = event.get("visible_to")
    if visible_to is None or seat in visible_to or "cards" not in event:
        return event
    redacted = dict(event)
    del redacted["cards"]
    return redacted


def view(game, seat: int | None) -> dict:
    """Everything `seat` may know and nothing else; None is a spectator."""
    if seat is not None and (not isinstance(seat, int) or not 0 <= seat < game.n):
        raise ValueError(f"There is no seat {seat!r} at this table.")
    to_move = game.to_move()
    seats = []
    for s in range(game.n):
        hand = game.hands[s]
        seats.append(
            {
                "seat": s,
                "cards": len(hand),
                "known": sort_hand([c for c in game.known[s] if c in hand], game.trump),
                # Public: the attack cards this player left unbeaten when he took, since he last drew.
                "declined": list(game.declined[s]),
                "team": game.rules.team_of(s),
                "place": game.out.get(s),
                "in_game": s not in game.out,
                "passed": s in game.passed,
                "to_move": s in to_move,
            }
        )
    return {
        "seat": seat,
        "rules": game.rules.to_dict(),
        "trump": game.trump,
        "trump_card": game.trump_card,
        "trump_card_in_stock": bool(game.stock) and game.stock[-1] == game.trump_card,
        "stock_size": len(game.stock),
        "discard_size": len(game.discard_pile),
        # Public: every discarded card was played face up (R13), so any player may remember it.
        "discard": sort_hand(game.discard_pile, game.trump),
        "hand": sort_hand(game.hands[seat], game.trump) if seat is not None else None,
        "seats": seats,
        "table": [[a, d] for a, d in game.pairs],
        "attacker": game.attacker,
        "defender": game.defender,
        "taking": game.taking,
        "first_bout": game.first_bout,
        "attack_limit": game.attack_limit,
        "to_move": to_move,
        "legal_actions": [str(a) for a in game.legal_actions(seat)] if seat is not None else [],
        "lowest_trump": ({"seat": game.lowest_trump[0], "card": game.lowest_trump[1]} if game.lowest_trump else None),
        "places": {str(s): p for s, p in sorted(game.out.items())},
        "is_over": game.over,
        "durak": game.durak,
        "losers": list(game.losers),
    }
