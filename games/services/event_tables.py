"""Closing a tournament round's table before anything was played at it.

A director who seats again tables of a round under way (or puts a substitute in a
seat) has their first games dealt already, with no move made. Such a table is
closed without a result: its unplayed game is removed (no card was played, so
nobody won, lost or was rated), and the event opens a new table with the new seats.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.errors import TableRefused
from games.models import Game, Table

from .tables import _locked_table, _notify


def do_close_unstarted_table(*, table_id: int) -> None:
    """Close an event's table whose only game has no move yet; the game leaves no result.
    Refused if play has begun there (a move made, or a game finished)."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if not table.managed_by_event:
            raise TableRefused(_("Only a tournament round's table is closed this way."))
        games = list(Game.objects.select_for_update().filter(table=table))
        if len(games) > 1 or any(g.move_count or g.status != Game.Status.PLAYING for g in games):
            raise TableRefused(_("Play has begun at this table."))
        for game in games:
            game.delete()  # seats and (empty) move log go with it
        table.status = Table.Status.CLOSED
        table.updated_at = timezone.now()
        table.save(update_fields=["status", "updated_at"])
        _notify(table)
