"""Celery tasks that run events: thin nudges; the database says what is due.

`advance_event`, `record_game` and `arena_seating_pass` go to the event's variant queue
(podkidnoy / perevodnoy); the sweep (django-celery-beat, every 5 seconds,
created by migration 0002) runs on "default" and catches anything a lost or
late nudge left behind. Repeating any of them changes nothing.
"""

import logging

from celery import shared_task

from . import absence, services

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def advance_event(tournament_id: int) -> list:
    """Whatever is due in one event: windows, the next round, games to record
    (a step that fails is noted and retried as in the sweep, not raised)."""
    return services.do_sweep_event(tournament_id=tournament_id)


@shared_task(ignore_result=True)
def record_game(game_id: int) -> list:
    """A game finished (games.signals.game_finished): record it if it is an event's."""
    return services.do_record_game(game_id=game_id)


@shared_task(ignore_result=True)
def arena_seating_pass(tournament_id: int) -> int:
    """An arena's seating pass (a game ended, someone came back, a wait is over); a repeat
    or two at once seat nobody twice (the service locks the event)."""
    return services.do_arena_seating_pass(tournament_id=tournament_id)


@shared_task(ignore_result=True)
def sweep_events() -> int:
    """Beat: advance every event with something due. A step that fails is noted by
    the service (logged once, retried after a growing pause, shown to the director),
    so one broken event neither stalls the others nor fails every 5 seconds in silence."""
    acted = 0
    # No-shows past their grace forfeit first (absence.py): a failing table's step is a
    # StuckStep noted (and its pause renewed) before the events' own steps look at them.
    try:
        acted += len(absence.do_forfeit_no_shows())
    except Exception:  # (reading the tables failed: the database is away) the next sweep retries
        log.exception("could not check the tables for no-shows")
    for tournament_id in services.due_event_ids():
        try:
            acted += len(services.do_sweep_event(tournament_id=tournament_id))
        except Exception:  # noting the failure failed too (the database is away): the next sweep retries
            log.exception("could not advance event %s", tournament_id)
    return acted
