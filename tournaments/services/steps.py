"""An event's steps that fail, and their bookkeeping: a step that fails after what came before it
was stored (`StepFailed`) is noted (`note_failure`: a StuckStep, logged once, shown to the
director) and tried again after a growing pause (`retry_pause`) while the rest goes on."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from .. import notify
from ..models import StuckStep, Tournament

log = logging.getLogger(__name__)


# A step that fails is tried again after RETRY_FIRST, then twice as long each
# time, at most RETRY_MAX apart; it is logged once, when it first fails, and the
# director's page shows it (StuckStep) with the actions that resolve it.
RETRY_FIRST = timedelta(seconds=10)


RETRY_MAX = timedelta(minutes=10)


class StepFailed(Exception):
    """A step of an event failed after what came before it was stored."""

    def __init__(self, step: str, round_table_id: int | None, error: BaseException):
        super().__init__(f"{step}: {error!r}")
        self.step, self.round_table_id, self.error = step, round_table_id, error


def retry_pause(failures: int) -> timedelta:
    return min(RETRY_FIRST * 2 ** min(max(failures - 1, 0), 20), RETRY_MAX)


def note_failure(tournament_id: int, failure: StepFailed, now=None) -> StuckStep | None:
    """Count a failed step and set its next attempt; log it only the first time."""
    now = now or timezone.now()
    with transaction.atomic():
        event = Tournament.objects.select_for_update(of=("self",)).filter(pk=tournament_id).first()
        if event is None:
            return None
        kind = {"step": failure.step, "round_table_id": failure.round_table_id}
        stuck = StuckStep.objects.select_for_update(of=("self",)).filter(tournament=event, **kind).first()
        first = stuck is None
        if first:
            stuck = StuckStep(tournament=event, first_failed_at=now, **kind)
        stuck.failures += 1
        stuck.error = f"{type(failure.error).__name__}: {failure.error}"[:300]
        stuck.last_failed_at = now
        stuck.next_attempt_at = now + retry_pause(stuck.failures)
        stuck.save()
    if first:
        log.error(
            "event %s: %s failed (round table %s); retried with backoff and shown to the director",
            tournament_id,
            failure.step,
            failure.round_table_id,
            exc_info=failure.error,
        )
        notify.event_changed_on_commit(tournament_id)
    return stuck
