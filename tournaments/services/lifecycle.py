"""The event's life, above the format objects: its windows and rounds moved on by time, the
director's publish (of a draft), start, pause and resume (statuses of their own:
director.TRANSITIONS), cancel, reopen, finish and delete, and the sweep. Where the formats
differ it asks the event's format object (tournaments.registry): start, seat whoever is free,
record a result; the round formats' driver is services.rounds, failing steps services.steps.

`do_advance_event` (every nudge) and `do_sweep_event` (the periodic sweep) run the event's
own move under its lock, then each finished game's results and each table's next deal in a
transaction of its own (`_advance_steps`); a step that fails is noted (`note_failure`) and
tried again after a growing pause (`retry_pause`) while the rest of the event goes on.
`do_record_game`, the nudge of a game that ended, records it and deals the next game the same way.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import selectors as game_records

from .. import notify, registry, signals
from ..errors import TournamentRefused
from ..models import Round, RoundTable, StuckStep, Tournament
from . import results, seating, setup
from .base import current_round, locked_event
from .director import ACTION_REFUSALS, allowed, check_allowed, log_action, require_director
from .rounds import start_round
from .steps import StepFailed, note_failure

log = logging.getLogger(__name__)


def do_advance_event(*, tournament_id: int, now=None) -> list[str]:
    """Do everything that is due at `now` (the sweep and every nudge call this).

    Idempotent: it reads the event under its lock and acts only on times that
    have passed and steps not yet taken. Returns what it did, for logs and tests.
    """
    done, failures = _advance_steps(tournament_id, now or timezone.now(), hold=frozenset())
    if failures:
        raise failures[0]
    return done


def _advance_steps(tournament_id: int, now, hold) -> tuple[list[str], list[StepFailed]]:
    """The event's own move (windows, round starts) under its lock; then, for the round
    being played, each finished game's results stored and committed on their own, and
    only then each table's next game dealt, each in a transaction of its own: a step
    that fails takes back nothing stored before it, and keeps no other from running.
    Steps in `hold` ((step, round table id) that wait for their next attempt) are skipped."""
    done: list[str] = []
    failures: list[StepFailed] = []
    try:
        if (StuckStep.Step.ADVANCE, None) not in hold:
            try:
                with transaction.atomic():
                    done += _advance(locked_event(tournament_id), now)
            except TournamentRefused:
                raise
            except Exception as exc:
                failures.append(StepFailed(StuckStep.Step.ADVANCE, None, exc))
        format_name = Tournament.objects.filter(pk=tournament_id).values_list("format", flat=True).first()
        done += registry.of_format(format_name).seat_free(tournament_id, now, failures, hold)
    finally:
        if done:
            notify.event_changed_on_commit(tournament_id)
    return done, failures


def _advance(event: Tournament, now) -> list[str]:
    done: list[str] = []
    if event.status in (Tournament.Status.DRAFT, Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        return done  # (a draft waits for its director to publish it)
    fields = []
    if event.registration_opened_at is None and (event.registration_opens is None or event.registration_opens <= now):
        event.registration_opened_at = now
        fields.append("registration_opened_at")
        if event.status == Tournament.Status.SCHEDULED:
            event.status = Tournament.Status.REGISTRATION
            fields.append("status")
        done.append("registration opened")
    if event.registration_closed_at is None and event.registration_closes and event.registration_closes <= now:
        event.registration_closed_at = now
        fields.append("registration_closed_at")
        done.append("registration closed")
    if event.checkin_opened_at is None and event.checkin_opens and event.checkin_opens <= now:
        event.checkin_opened_at = now
        event.status = Tournament.Status.CHECKIN
        fields += ["checkin_opened_at", "status"]
        done.append("check-in opened")
        signals.send_on_commit(signals.checkin_opened, tournament_id=event.pk)
    if event.checkin_closed_at is None and event.checkin_closes and event.checkin_closes <= now:
        event.checkin_closed_at = now
        fields.append("checkin_closed_at")
        done.append("check-in closed")
    if fields:
        event.save(update_fields=sorted(set(fields)))
    hooks = registry.of(event)
    if "check-in closed" in done and not event.is_under_way and not hooks.continuous:
        first, _created = Round.objects.get_or_create(
            tournament=event, number=1, defaults={"starts_at": event.starts_at}
        )
        if first.status == Round.Status.SCHEDULED and not first.seated_by_director:
            seating.draft_seating(event, first)
            done.append("round 1 drafted")
    if event.status == Tournament.Status.PAUSED:
        return done  # no round starts; the round being played goes on (after this transaction)
    if event.status != Tournament.Status.RUNNING:
        if event.starts_at <= now:
            done += hooks.start(event, now)
        return done
    if hooks.continuous:
        return done  # (its one round is played from the start to the end: seat_free, after this transaction)
    latest = current_round(event)
    if latest is None:
        done += start_round(event, 1, now)
    elif latest.status == Round.Status.SCHEDULED and latest.starts_at <= now:
        done += start_round(event, latest.number, now)
    # A round being played: do_advance_event records and deals after this transaction.
    return done


OVER = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)


def do_start_round(*, tournament_id: int, number: int, now=None) -> list[str]:
    """Start round `number` now if it is the next one; a repeat does nothing."""
    now = now or timezone.now()
    with transaction.atomic():
        event = locked_event(tournament_id)
        if event.status in (Tournament.Status.DRAFT, Tournament.Status.PAUSED, *OVER):
            return []
        done = start_round(event, number, now)
    notify.event_changed_on_commit(tournament_id)
    return done


def do_record_game(*, game_id: int, now=None) -> list[str]:
    """A game at an event table has ended: store its results (once), and finish
    the round when all are done. Only once they are committed is the round's next
    game dealt at that table: a deal that fails takes no result back, and is
    noted for the sweep to retry (`note_failure`)."""
    game = game_records.finished_game(game_id)
    if game is None:
        return []
    rt = RoundTable.objects.filter(table_id=game["table_id"]).select_related("round__tournament").first()
    if rt is None:
        return []
    now = now or timezone.now()
    tournament_id = rt.round.tournament_id
    done = registry.of(rt.round.tournament).record_result(tournament_id, rt.pk, game, now)
    if done:
        notify.event_changed_on_commit(tournament_id)
    return done


def do_start_now(*, tournament_id: int, by) -> list[str]:
    """Start the event (or its next scheduled round) at once."""
    require_director(by)
    now = timezone.now()
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "start")
        if not event.is_under_way:
            count = len(seating.eligible_for_round(event, 1))
            if count < 2:
                # Starting would cancel the event: refuse, and say why.
                if event.checkin_opens is not None:
                    raise TournamentRefused(
                        _("At least two checked-in entrants are needed to start; now there are %(count)s."),
                        count=count,
                    )
                raise TournamentRefused(
                    _("At least two entrants are needed to start; now there are %(count)s."), count=count
                )
            event.starts_at = now
            event.save(update_fields=["starts_at"])
        else:
            latest = current_round(event)
            if latest is None or latest.status != Round.Status.SCHEDULED:
                raise TournamentRefused(_("No round is waiting to start: wait until the round being played ends."))
            latest.starts_at = now
            latest.save(update_fields=["starts_at"])
        if event.status == Tournament.Status.PAUSED:  # starting the next round ends the pause
            event.status = Tournament.Status.RUNNING
            event.paused_at = None
            event.save(update_fields=["status", "paused_at"])
        log_action(event, by, "start")
    return do_advance_event(tournament_id=tournament_id, now=now)


def do_set_paused(*, tournament_id: int, by, paused: bool) -> Tournament:
    """Pause (running -> paused): no round starts until the director resumes (paused ->
    running); the round being played goes on, and may end the event if it is the last."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "pause" if paused else "resume")
        event.status = Tournament.Status.PAUSED if paused else Tournament.Status.RUNNING
        event.paused_at = timezone.now() if paused else None
        event.save(update_fields=["status", "paused_at"])
        log_action(event, by, "pause" if paused else "resume")
    notify.event_changed_on_commit(tournament_id)
    return event


def do_publish_event(*, tournament_id: int, by) -> Tournament:
    """A draft goes public (draft -> scheduled): listed, and from its registration time open to
    entries; when that time has come (or it has none) registration opens at once. A start
    already past is refused: the sweep would cancel the event at once for want of entrants."""
    require_director(by)
    now = timezone.now()
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "publish")
        if event.starts_at < setup.next_minute():
            raise TournamentRefused(_("Set a start time in the future first (in the setup), then publish."))
        event.status = Tournament.Status.SCHEDULED
        fields = ["status"]
        if event.registration_opens is None or event.registration_opens <= now:
            event.status = Tournament.Status.REGISTRATION
            event.registration_opened_at = now
            fields.append("registration_opened_at")
        event.save(update_fields=fields)
        log_action(event, by, "publish", before=Tournament.Status.DRAFT, after=event.status)
    setup.schedule_nudges_on_commit(tournament_id)
    notify.event_changed_on_commit(tournament_id)
    return event


def do_cancel_event(*, tournament_id: int, by, reason: str = "") -> Tournament:
    """The event will not be played (or not played on): nothing more is seated or started.
    Games at its tables that are under way may be finished by their players."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "cancel")
        before = event.status
        event.status = Tournament.Status.CANCELLED
        event.finished_at = timezone.now()
        event.save(update_fields=["status", "finished_at"])
        log_action(event, by, "cancel", reason, before=before, after=event.status)
    notify.event_changed_on_commit(tournament_id)
    return event


def do_reopen_event(*, tournament_id: int, by, reason: str = "") -> Tournament:
    """A cancelled or finished event is live again (logged: who, when, why).

    Finished: it is running again, with every round played, so that results can be
    corrected; "finish" ends it again. Cancelled after it started: running again, the
    sweep goes on from where it stopped. Cancelled before it started: back to its
    registration (or scheduled, or check-in), which needs a start time in the future.
    """
    require_director(by)
    reason = (reason or "").strip()
    if not reason:
        raise TournamentRefused(_("Say why the event is reopened."))
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "reopen")
        before = event.status
        if event.status == Tournament.Status.FINISHED or event.started_at is not None:
            event.status = Tournament.Status.RUNNING
        else:
            if event.starts_at < setup.next_minute():
                raise TournamentRefused(_("Set a start time in the future first (in the setup), then reopen."))
            if event.checkin_opened_at is not None:
                event.status = Tournament.Status.CHECKIN
            elif event.registration_opened_at is not None:
                event.status = Tournament.Status.REGISTRATION
            else:
                event.status = Tournament.Status.SCHEDULED
        event.finished_at = None
        event.save(update_fields=["status", "finished_at"])
        log_action(event, by, "reopen", reason, before=before, after=event.status)
    setup.schedule_nudges_on_commit(tournament_id)
    notify.event_changed_on_commit(tournament_id)
    return event


def do_finish_event(*, tournament_id: int, by, reason: str = "") -> Tournament:
    """End a running event now that no round is being played (a reopened event after its
    corrections, or a Swiss ended early); a round scheduled but not started is dropped."""
    require_director(by)
    now = timezone.now()
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "finish")
        before = event.status
        if event.round_set.filter(status=Round.Status.PLAYING).exists():
            raise TournamentRefused(_("A round is being played: wait until it ends."))
        event.round_set.filter(status=Round.Status.SCHEDULED).delete()
        event.ratings_nudged_at = None  # the ratings follow the event's final results
        results.finish_event(event, now)
        log_action(event, by, "finish", reason, before=before, after=event.status)
    notify.event_changed_on_commit(tournament_id)
    return event


def do_delete_event(*, tournament_id: int, by) -> str:
    """Delete an event that never started (its entries go with it); returns its name."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        started = event.started_at is not None or event.round_set.exclude(status=Round.Status.SCHEDULED).exists()
        if started or not allowed(event, "delete"):
            raise TournamentRefused(ACTION_REFUSALS["delete"])
        name = event.name
        event.delete()
    log.info("event %s (%s) deleted by %s", tournament_id, name, getattr(by, "pk", None))
    return name


def due_event_ids(now=None) -> list[int]:
    """Events with something due (for the sweep): not over, and a time passed or a round on."""
    now = now or timezone.now()
    live = Tournament.objects.exclude(status__in=[Tournament.Status.DRAFT, *OVER])
    due = live.filter(
        Q(status__in=Tournament.UNDER_WAY)
        | Q(starts_at__lte=now)
        | Q(registration_opened_at__isnull=True, registration_opens__isnull=True)
        | Q(registration_opened_at__isnull=True, registration_opens__lte=now)
        | Q(registration_closed_at__isnull=True, registration_closes__lte=now)
        | Q(checkin_opened_at__isnull=True, checkin_opens__lte=now)
        | Q(checkin_closed_at__isnull=True, checkin_closes__lte=now)
    )
    return list(due.order_by("pk").values_list("pk", flat=True))


def do_sweep_event(*, tournament_id: int, now=None) -> list[str]:
    """One event's turn in the sweep: whatever is due. A step that failed waits for
    its next attempt (a growing pause) while the rest of the event goes on; a failure
    is noted (`note_failure`), not raised, and a step that succeeds again is cleared."""
    now = now or timezone.now()
    stuck = list(StuckStep.objects.filter(tournament_id=tournament_id))
    hold = frozenset((s.step, s.round_table_id) for s in stuck if s.next_attempt_at > now)
    done, failures = _advance_steps(tournament_id, now, hold)
    failed = set()
    for failure in failures:
        note_failure(tournament_id, failure, now)
        failed.add((failure.step, failure.round_table_id))
    # The no-show step is run (and cleared) by tournaments.absence, not by these steps.
    cleared = [
        s.pk for s in stuck if s.step != StuckStep.Step.NO_SHOW and (s.step, s.round_table_id) not in hold | failed
    ]
    if cleared and StuckStep.objects.filter(pk__in=cleared).delete()[0]:
        log.info("event %s: a step that failed succeeded", tournament_id)
        notify.event_changed_on_commit(tournament_id)
    return done


def do_retry_stuck_step(*, tournament_id: int, by) -> list[str]:
    """The director: try the failing steps again now, not at their next attempt."""
    require_director(by)
    now = timezone.now()
    with transaction.atomic():
        event = locked_event(tournament_id)
        stuck = list(StuckStep.objects.select_for_update(of=("self",)).filter(tournament=event))
        if not stuck:
            raise TournamentRefused(_("No step of this event waits for a retry."))
        StuckStep.objects.filter(pk__in=[s.pk for s in stuck]).update(next_attempt_at=now)
        log_action(event, by, "retry", steps=[[s.step, s.round_table_id, s.failures, s.error] for s in stuck])
    done = do_sweep_event(tournament_id=tournament_id, now=now)
    if StuckStep.objects.filter(tournament_id=tournament_id, last_failed_at__gte=now).exists():
        raise TournamentRefused(_("The step failed again: it is retried later."))
    return done
