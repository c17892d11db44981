"""What the battles app tells other apps, after the commit (as tournaments.signals does).

- `club_invited(battle_club_id)`: a club was invited to a battle (its leaders may answer).
"""

from __future__ import annotations

import logging

import django.dispatch
from django.db import transaction

log = logging.getLogger(__name__)

club_invited = django.dispatch.Signal()


def send_on_commit(signal: django.dispatch.Signal, **kwargs) -> None:
    def send():
        for _receiver, result in signal.send_robust(sender=None, **kwargs):
            if isinstance(result, Exception):
                log.error("a receiver of a battles signal failed: %r", result, exc_info=result)

    transaction.on_commit(send)
