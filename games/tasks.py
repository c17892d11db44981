"""Celery tasks: thin nudges that re-derive their work from the database.

A lost message is covered by the beat sweep; a repeated one finds nothing due
(`do_advance_game` is idempotent), so both are safe to run any number of times.
`advance_game` is sent to the queue named after the game's variant
(notify.nudge_game); the sweep runs on the default queue.
"""

import logging

from celery import shared_task

from games import selectors
from games.services import clock as clock_service
from games.services import housekeeping as housekeeping_service
from games.services import play

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def advance_game(game_id: int) -> int:
    """Expired turn timers, else one due bot move, of one game."""
    return play.do_advance_game(game_id=game_id)


@shared_task(ignore_result=True)
def sweep_due_games() -> int:
    """Beat: advance every game with an expired timer or a bot to move.

    Its heartbeat comes first: after an outage every running deadline moves on by it
    before any timer is looked at (games.services.clock)."""
    clock_service.do_beat()
    made = 0
    for game_id in selectors.due_game_ids():
        try:
            made += play.do_advance_game(game_id=game_id)
        except Exception:  # one broken game must not stall every other table
            log.exception("could not advance game %s", game_id)
    return made


@shared_task(ignore_result=True)
def housekeeping() -> dict:
    """Beat (every minute, registered by games/migrations/0003): idle tables, the play-now queue."""
    return housekeeping_service.do_housekeeping()
