"""Who has come to a table: the first time a seat's player opened its live socket.

`TableSeat.seen_at` is written once per seat (the first connect; later ones
change nothing), so an event can tell a player who never came to his table
from one who came and is thinking (tournaments' no-show forfeits read it).

`TableSeat.offline_since` is set when a seat's player closes a socket and cleared
when he opens one again: while it is set, a turn that runs out gives him his one
extra wait of the game (games.services.clock.grant_grace) before it counts.
Every change of it is told to the table (the seat panels show online / offline /
left to everyone there; games.services.claim lets the others claim the game over
a player gone for long enough).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from games.models import TableSeat

from . import notify


def _tell_the_table(table_id: int) -> None:
    transaction.on_commit(lambda: notify.table_changed(table_id, lobby=False))


def do_mark_seen(*, table_id: int, user_id: int | None, now=None) -> bool:
    """The seat `user_id` holds at `table_id` has been seen (one UPDATE; a spectator,
    a guest without a seat or a second connect changes nothing). Returns whether it was new."""
    if user_id is None:
        return False
    changed = TableSeat.objects.filter(table_id=table_id, user_id=user_id, seen_at__isnull=True).update(
        seen_at=now or timezone.now()
    )
    return bool(changed)


def do_mark_online(*, table_id: int, user_id: int | None) -> bool:
    """The seat's player has a socket open at his table again. Returns whether he was offline."""
    if user_id is None:
        return False
    changed = TableSeat.objects.filter(table_id=table_id, user_id=user_id, offline_since__isnull=False).update(
        offline_since=None
    )
    if changed:
        _tell_the_table(table_id)
    return bool(changed)


def do_mark_offline(*, table_id: int, user_id: int | None, now=None) -> bool:
    """The seat's player closed a socket at his table (one UPDATE; the first time counts).
    A second tab still open is not known here: it gets him an extra wait he may not
    need, never a timeout he should not have had. Returns whether it was new."""
    if user_id is None:
        return False
    changed = TableSeat.objects.filter(table_id=table_id, user_id=user_id, offline_since__isnull=True).update(
        offline_since=now or timezone.now()
    )
    if changed:
        _tell_the_table(table_id)
    return bool(changed)
