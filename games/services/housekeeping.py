"""The periodic housekeeping of the club (games.tasks.housekeeping, every minute).

Tables nobody will finish: a table waiting for players that nobody has touched for
`WAITING_IDLE` is closed; a game without a turn timer that nobody has moved in for
`PLAYING_IDLE` is ended (its people go on autopilot and the bots play it out:
`play.do_close_idle_game`; time the site was down does not count: after an outage,
from when it came back, games.services.clock). The "play now" queue is swept as well. Everything is
re-derived from the database, so running it twice, or late, changes nothing more.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games import selectors
from games.models import Table

from . import clock, matchmaking, notify, play

log = logging.getLogger(__name__)

WAITING_IDLE = timedelta(hours=2)
PLAYING_IDLE = timedelta(minutes=30)


def do_close_idle_tables(*, now=None) -> dict:
    """Close the idle waiting tables and end the idle games without a timer; returns the counts."""
    now = now or timezone.now()
    idle = selectors.idle_table_ids(waiting_before=now - WAITING_IDLE, playing_before=now - PLAYING_IDLE)
    resumed = clock.resumed_at()
    if resumed is not None and resumed > now - PLAYING_IDLE:
        idle["games"] = []  # nobody could move while the site was down: idle counts from its return
    closed = 0
    for table_id in idle["waiting"]:
        with transaction.atomic():
            changed = Table.objects.filter(
                pk=table_id, status=Table.Status.WAITING, updated_at__lt=now - WAITING_IDLE
            ).update(status=Table.Status.CLOSED, updated_at=now)
            if changed:
                closed += 1
                transaction.on_commit(lambda table_id=table_id: notify.table_changed(table_id))
    ended = 0
    for game_id in idle["games"]:
        try:
            ended += bool(play.do_close_idle_game(game_id=game_id, idle_before=now - PLAYING_IDLE))
        except Exception:  # one broken game must not stop the others
            log.exception("could not end idle game %s", game_id)
    return {"closed": closed, "ended": ended}


def do_housekeeping(*, now=None) -> dict:
    """Everything the periodic job does, each part idempotent."""
    figures = do_close_idle_tables(now=now)
    figures["matched"] = matchmaking.do_sweep_queue(now=now)
    return figures
