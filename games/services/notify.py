"""Telling the live tables and the workers that something changed.

Called only from `transaction.on_commit`, so nobody hears of a move that was
rolled back. A message is a nudge: receivers re-derive what they show or do.
"""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def _send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        from durak_site import embedded

        if not embedded.send_on_site_loop(layer, group, message):
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # a dropped notification must never undo a committed move
        log.exception("could not notify %s", group)


def table_changed(table_id: int, events: list | None = None, lobby: bool = True, snapshot: dict | None = None) -> None:
    """Send the table's group its snapshot (read now unless given) and the lobby a nudge."""
    if snapshot is None:
        from games.selectors import table_snapshot

        snapshot = table_snapshot(table_id)
    _send(table_group(table_id), {"type": "table.changed", "snapshot": snapshot, "events": events or []})
    if lobby:
        _send(LOBBY_GROUP, {"type": "lobby.changed"})


def game_changed(game_id: int, events: list, table_id: int | None = None, lobby: bool | None = None) -> None:
    """A game moved: tell its table; the lobby hears only of a game's end (or when asked)."""
    if table_id is None:
        from games.models import Game

        table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
        if table_id is None:
            return
    if lobby is None:
        lobby = any(e.get("type") == "game_over" for e in events)
    table_changed(table_id, events, lobby=lobby)


def nudge_game(game_id: int, variant: str, delay: float) -> None:
    """Ask a worker on the variant's queue to advance the game after `delay` seconds.

    Only a nudge: the beat sweep (sweep_due_games) finds due games anyway.
    """
    from games.tasks import advance_game

    try:
        advance_game.apply_async(args=[game_id], countdown=delay, queue=variant)
    except Exception:  # the beat sweep picks the game up if the broker is away
        log.exception("could not nudge game %s", game_id)
