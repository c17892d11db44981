"""Receivers of the tournaments app's signals (sent after the commit): they only enqueue a task,
and never raise into the event's path."""

from __future__ import annotations

import logging

from django.conf import settings

from .models import Kind

log = logging.getLogger(__name__)


def _enqueue(kind: str, object_id: int) -> None:
    from .tasks import send_notice

    try:
        send_notice.apply_async(args=[kind, object_id], queue=settings.BATCH_QUEUE)
    except Exception:  # a lost broker loses these notices, never the round
        log.exception("could not enqueue notice %s %s", kind, object_id)


def on_registration_confirmed(sender=None, *, tournament_id: int, entrant_id: int, **kwargs):
    _enqueue(Kind.REGISTRATION, entrant_id)


def on_checkin_opened(sender=None, *, tournament_id: int, **kwargs):
    _enqueue(Kind.CHECKIN, tournament_id)


def on_round_started(sender=None, *, tournament_id: int, round_id: int, number: int, **kwargs):
    _enqueue(Kind.ROUND, round_id)


def on_event_finished(sender=None, *, tournament_id: int, **kwargs):
    _enqueue(Kind.FINAL, tournament_id)


def on_club_invited(sender=None, *, battle_club_id: int, **kwargs):
    _enqueue(Kind.CLUB_INVITED, battle_club_id)


def profile_sections(request, player) -> list:
    """On one's own profile, a link to the notification settings."""
    from django.template.loader import render_to_string
    from django.utils.safestring import mark_safe

    if not request.user.is_authenticated or request.user.pk != player.pk:
        return []
    return [mark_safe(render_to_string("notices/partials/profile_link.html", request=request))]
