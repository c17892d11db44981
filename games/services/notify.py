"""Telling the live tables and the workers that something changed.

Called only from `transaction.on_commit`, so nobody hears of a move that was
rolled back. A message is a nudge: receivers re-derive what they show or do.

How a message reaches the channel layer can be taken over by the process that
runs the site (`set_group_sender`): the embedded mode hands sends made in its
worker threads to the server's event loop.
"""

import logging
import uuid

from asgiref.sync import async_to_sync
from celery import current_app
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
ADVANCE_GAME_TASK = "games.tasks.advance_game"

# sender(layer, group, message) -> True when it sent the message itself.
_group_sender = None


def set_group_sender(sender) -> None:
    """Let `sender(layer, group, message)` send first; it returns False to leave the send to us."""
    global _group_sender
    _group_sender = sender


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def send_to_group(group: str, message: dict) -> None:
    """Send `message` to a channel layer group; a failure is logged, never raised."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        sender = _group_sender
        if sender is None or not sender(layer, group, message):
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # a dropped notification must never undo a committed move
        log.exception("could not notify %s", group)


class SentSnapshot(dict):
    """A table snapshot once sent: read-only from then on.

    The in-memory channel layer deep-copies a group message for every socket of
    the group; a sent snapshot is never changed, so its copy is itself (a table
    of six saves six copies of the whole position per move). Other layers
    serialise it as the dict it is."""

    __slots__ = ()

    def __deepcopy__(self, memo):
        return self


def table_changed(table_id: int, events: list | None = None, lobby: bool = True, snapshot: dict | None = None) -> None:
    """Send the table's group its snapshot (read now unless given) and the lobby a nudge.

    The message's `key` names this one snapshot: the sockets of a process that get
    the message render the part every seat sees alike once, under that key
    (`games.table.rendering.shared_regions_of`)."""
    if snapshot is None:
        from games.selectors import table_snapshot

        snapshot = table_snapshot(table_id)
    message = {
        "type": "table.changed",
        "snapshot": SentSnapshot(snapshot),
        "events": events or [],
        "key": uuid.uuid4().hex,
    }
    send_to_group(table_group(table_id), message)
    if lobby:
        send_to_group(LOBBY_GROUP, {"type": "lobby.changed"})


def chat_posted(table_id: int, message: dict) -> None:
    """A chat message (`selectors.chat_message_data`) for the table's sockets."""
    send_to_group(table_group(table_id), {"type": "table.chat", "message": message})


def emote_sent(table_id: int, message: dict) -> None:
    """An emote from a seat ({"seat", "emote", "muted": the user ids that drop it})."""
    send_to_group(table_group(table_id), {"type": "table.emote", **message})


def emote_mutes_changed(table_id: int, user_id: int, mutes: dict) -> None:
    """A player's emote mutes (`selectors.emote_mutes`): his sockets at the table follow them."""
    send_to_group(table_group(table_id), {"type": "table.emote_mutes", "user_id": user_id, "mutes": mutes})


def nudge_game(game_id: int, variant: str, delay: float) -> None:
    """Ask a worker on the variant's queue to advance the game after `delay` seconds.

    Only a nudge: the beat sweep (sweep_due_games) finds due games anyway. Sent
    by name, so this module needs no import of the tasks (which call the services).
    """
    try:
        current_app.send_task(ADVANCE_GAME_TASK, args=[game_id], countdown=delay, queue=variant)
    except Exception:  # the beat sweep picks the game up if the broker is away
        log.exception("could not nudge game %s", game_id)
