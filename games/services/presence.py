"""Who has come to a table: the first time a seat's player opened its live socket.

`TableSeat.seen_at` is written once per seat (the first connect; later ones
change nothing), so an event can tell a player who never came to his table
from one who came and is thinking (tournaments' no-show forfeits read it).
"""

from __future__ import annotations

from django.utils import timezone

from games.models import TableSeat


def do_mark_seen(*, table_id: int, user_id: int | None, now=None) -> bool:
    """The seat `user_id` holds at `table_id` has been seen (one UPDATE; a spectator,
    a guest without a seat or a second connect changes nothing). Returns whether it was new."""
    if user_id is None:
        return False
    changed = TableSeat.objects.filter(table_id=table_id, user_id=user_id, seen_at__isnull=True).update(
        seen_at=now or timezone.now()
    )
    return bool(changed)
