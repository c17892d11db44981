"""What the tournaments app tells other apps, always after the commit and never into its own path.

Each signal is sent from `transaction.on_commit` by `send_on_commit`, robustly: a receiver
that raises is logged and the event goes on (a round starts whatever a mail server does).
Receivers get plain ids and read what they need themselves.

- `registration_confirmed(tournament_id, entrant_id)`: an entry holds a place (registered
  with a free place, or promoted from the waiting list);
- `checkin_opened(tournament_id)`: the event's check-in window opened;
- `round_started(tournament_id, round_id, number)`: a round's tables are open;
- `event_finished(tournament_id)`: the event is over with its final standings.
"""

from __future__ import annotations

import logging

import django.dispatch
from django.db import transaction

log = logging.getLogger(__name__)

registration_confirmed = django.dispatch.Signal()
checkin_opened = django.dispatch.Signal()
round_started = django.dispatch.Signal()
event_finished = django.dispatch.Signal()


def send_on_commit(signal: django.dispatch.Signal, **kwargs) -> None:
    def send():
        for _receiver, result in signal.send_robust(sender=None, **kwargs):
            if isinstance(result, Exception):
                log.error("a receiver of a tournaments signal failed: %r", result, exc_info=result)

    transaction.on_commit(send)
