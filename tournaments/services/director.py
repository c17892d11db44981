"""Who directs events, what a director may do in each status, the log of it, and announcements.

The transitions table (`TRANSITIONS`) says from which statuses each director action may
act; every action module checks it with `check_allowed` and writes the director's log with
`log_action`, so this module sits below them all (it imports only `base`).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from .. import notify
from ..errors import TournamentRefused
from ..models import Announcement, DirectorAction, Entrant, Tournament
from .base import locked_event


def can_direct(user) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return user.is_superuser or user.groups.filter(name=DIRECTORS_GROUP).exists()


DIRECTORS_GROUP = "Tournament directors"


def require_director(user) -> None:
    if not can_direct(user):
        raise TournamentRefused(_("Only a tournament director may do this."))


_S = Tournament.Status
BEFORE_START = frozenset({_S.SCHEDULED, _S.REGISTRATION, _S.CHECKIN})
UNDER_WAY = frozenset(Tournament.UNDER_WAY)
LIVE = BEFORE_START | UNDER_WAY


# The event's life as one state machine: each director action and the statuses it may act
# from. Besides these, time moves it (lifecycle._advance): scheduled -> registration ->
# check-in -> running -> finished, or cancelled when too few entrants are there at the start;
# a draft waits for its director. The director's own moves:
#   draft -publish-> scheduled (or registration, when its time has come)
#   scheduled, registration, check-in -start-> running
#   running -pause-> paused -resume-> running (or -start-> running, with the next round)
#   live -cancel-> cancelled; running, paused -finish-> finished
#   cancelled, finished -reopen-> running (or back before the start, if it never started)
#   draft, before the start, cancelled -delete-> (gone), if it never started
TRANSITIONS: dict[str, frozenset] = {
    "publish": frozenset({_S.DRAFT}),
    "start": LIVE,  # the event, or between rounds the next round (a paused event resumes)
    "pause": frozenset({_S.RUNNING}),
    "resume": frozenset({_S.PAUSED}),
    "edit": BEFORE_START | {_S.DRAFT, _S.CANCELLED},  # a cancelled event gets a new time before it is reopened
    "late": LIVE,
    "withdraw": LIVE,
    "reinstate": LIVE,
    "checkin": LIVE,
    "reseat": LIVE,
    "announce": LIVE,
    "correct": UNDER_WAY,  # a finished event is reopened first
    "cancel": LIVE,
    "reopen": frozenset({_S.CANCELLED, _S.FINISHED}),
    "finish": UNDER_WAY,  # a reopened event, once its corrections are made
    "delete": BEFORE_START | {_S.DRAFT, _S.CANCELLED},  # and only if it never started
}


# Why an action is refused from a status (an action's own reason first).
STATUS_REFUSALS = {
    _S.DRAFT: _("The event is a draft: publish it first (or delete it)."),
    _S.SCHEDULED: _("The event has not started yet."),
    _S.REGISTRATION: _("The event has not started yet."),
    _S.CHECKIN: _("The event has not started yet."),
    _S.RUNNING: _("The event is under way: this is not possible now."),
    _S.PAUSED: _("The event is paused: resume it first."),
    _S.FINISHED: _("The event is finished: reopen it first."),
    _S.CANCELLED: _("The event is cancelled: reopen it first."),
}


ACTION_REFUSALS = {
    "publish": _("Only a draft can be published."),
    "pause": _("Only a running event can be paused."),
    "resume": _("Only a paused event can be resumed."),
    "reopen": _("Only a cancelled or finished event can be reopened."),
    "delete": _("Only an event that never started can be deleted."),
    "finish": _("Only a running event can be finished."),
    "edit": _("The event has started: its setup is fixed."),
}


def allowed(event: Tournament, action: str) -> bool:
    return event.status in TRANSITIONS[action]


def check_allowed(event: Tournament, action: str) -> None:
    if not allowed(event, action):
        raise TournamentRefused(ACTION_REFUSALS.get(action) or STATUS_REFUSALS[event.status])


def log_action(event: Tournament, by, action: str, reason: str = "", **detail) -> None:
    DirectorAction.objects.create(
        tournament=event,
        by=by if getattr(by, "pk", None) else None,
        at=timezone.now(),
        action=action,
        reason=(reason or "")[:200],
        detail=detail,
    )


def entrant_name(entrant: Entrant) -> str:
    return str(entrant)


ANNOUNCEMENT_LIMIT = 500  # characters: an announcement is read on a phone between games


def do_announce(*, tournament_id: int, by, text: str) -> Tournament:
    require_director(by)
    text = (text or "").strip()
    if not text:
        raise TournamentRefused(_("Write the message first."))
    if len(text) > ANNOUNCEMENT_LIMIT:
        raise TournamentRefused(
            ngettext_lazy(
                "An announcement has at most %(limit)s character.",
                "An announcement has at most %(limit)s characters.",
                "limit",
            ),
            limit=ANNOUNCEMENT_LIMIT,
        )
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "announce")
        announcement = Announcement.objects.create(tournament=event, text=text, by=by, at=timezone.now())
        user_ids = sorted({uid for e in event.entrants.select_related("pair") for uid in e.user_ids()})
    notify.announce_on_commit(tournament_id, user_ids, text)
    return announcement


def do_remove_announcement(*, tournament_id: int, announcement_id: int, by) -> Announcement:
    """Players no longer see it; the director's list keeps it, marked removed (a record, not a delete)."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        announcement = (
            Announcement.objects.select_for_update(of=("self",)).filter(pk=announcement_id, tournament=event).first()
        )
        if announcement is None:
            raise TournamentRefused(_("There is no such announcement in this event."))
        if announcement.removed_at is not None:
            raise TournamentRefused(_("This announcement has already been removed."))
        announcement.removed_at = timezone.now()
        announcement.removed_by = by
        announcement.save(update_fields=["removed_at", "removed_by"])
        log_action(event, by, "unannounce", text=announcement.text)
    notify.event_changed_on_commit(tournament_id)
    return announcement
