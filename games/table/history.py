"""The recent events of a game, for the log a page or a reconnecting socket shows.

Rebuilt from the seed and the move log (the database is the truth). The events
are raw engine events: every caller redacts them for its viewer through
`engine.event_for` (the presenter does), so private draws stay private.
"""

from games import engine
from games.models import Game
from games.services.positions import deal


def recent_events(game_id: int | None, limit: int = 60) -> tuple[list[dict], int]:
    """The last `limit` raw events of the game and the number of moves they cover."""
    if game_id is None:
        return [], 0
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return [], 0
    position = deal(engine.Rules.from_dict(game.rules), game.seed, game.dealer)
    events: list[dict] = [{"type": "deal", "visible_to": None}]
    moves = 0
    for seat, action in game.moves.order_by("number").values_list("seat", "action"):
        events.extend(position.act(seat, action))
        moves += 1
    return events[-limit:], moves
