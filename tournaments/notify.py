"""Telling browsers and workers that an event changed. Only from on_commit:
nobody hears of something that was rolled back. Messages are nudges.

The workers' tasks are sent by name (as games.services.notify does), so this module, which
every service imports, imports no tasks (which call the services)."""

from __future__ import annotations

import logging

from celery import current_app
from django.conf import settings
from django.db import transaction

from games.services import notify

log = logging.getLogger(__name__)

# The tasks of tournaments.tasks this module sends (tests/tournaments check they are registered).
ADVANCE_EVENT_TASK = "tournaments.tasks.advance_event"
ARENA_SEATING_PASS_TASK = "tournaments.tasks.arena_seating_pass"


def event_group(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def _send(group: str, message: dict) -> None:
    # The games app's sender: logs failures, and in the embedded mode hands the
    # send to the site's event loop.
    notify.send_to_group(group, message)


def event_changed_on_commit(tournament_id: int) -> None:
    transaction.on_commit(lambda: _send(event_group(tournament_id), {"type": "event.changed"}))


def user_changed_on_commit(user_id: int) -> None:
    transaction.on_commit(lambda: _send(user_group(user_id), {"type": "user.changed"}))


def table_url(table_id: int) -> str:
    from django.urls import reverse

    return reverse("games:table", args=[table_id])


def seats_on_commit(
    tournament_id: int, round_number: int, seated: dict[int, tuple[int, int]], *, arena: bool = False
) -> None:
    """Tell every seated player, on whatever page he has open, where to sit. An arena's
    notice says so and carries the table's address: his page goes there by itself."""

    def send():
        for user_id, (table_id, table_number) in seated.items():
            message = {
                "type": "seat.assigned",
                "tournament_id": tournament_id,
                "round": round_number,
                "table_id": table_id,
                "table_number": table_number,
            }
            if arena:
                message.update({"arena": True, "table_url": table_url(table_id)})
            _send(user_group(user_id), message)

    transaction.on_commit(send)


def announce_on_commit(tournament_id: int, user_ids: list[int], text: str) -> None:
    def send():
        message = {"type": "event.announcement", "tournament_id": tournament_id, "text": text}
        _send(event_group(tournament_id), {"type": "event.changed"})
        for user_id in user_ids:
            _send(user_group(user_id), message)

    transaction.on_commit(send)


def nudge_event(tournament_id: int, variant: str, when) -> None:
    """Ask a worker on the variant's queue to advance the event at `when`."""
    try:
        current_app.send_task(ADVANCE_EVENT_TASK, args=[tournament_id], eta=when, queue=variant)
    except Exception:  # the sweep finds the event anyway
        log.exception("could not nudge event %s", tournament_id)


def nudge_event_on_commit(tournament_id: int, variant: str, when) -> None:
    transaction.on_commit(lambda: nudge_event(tournament_id, variant, when))


def nudge_arena(tournament_id: int, variant: str, when=None) -> None:
    """Ask a worker on the variant's queue for an arena's seating pass (at `when`, else now)."""
    try:
        current_app.send_task(ARENA_SEATING_PASS_TASK, args=[tournament_id], eta=when, queue=variant)
    except Exception:  # the sweep seats them anyway
        log.exception("could not nudge the seating of arena %s", tournament_id)


def nudge_arena_on_commit(tournament_id: int, variant: str, when=None) -> None:
    transaction.on_commit(lambda: nudge_arena(tournament_id, variant, when))


# The ratings app's task (sent by name, contract 6): it brings a variant's ratings up to date.
RATINGS_RECOMPUTE_TASK = "ratings.tasks.recompute"


def recompute_ratings_on_commit(variant: str) -> None:
    def send():
        try:
            # A full recomputation is batch work (settings.BATCH_QUEUE, docs/scaling.md).
            current_app.send_task(RATINGS_RECOMPUTE_TASK, args=[variant], queue=settings.BATCH_QUEUE)
        except Exception:
            log.exception("could not ask for a ratings recompute of %s", variant)

    transaction.on_commit(send)
