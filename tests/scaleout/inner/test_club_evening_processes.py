"""Issue 15, "Tests": the whole club evening again on PostgreSQL + Redis, advanced by real
`celery beat` and `celery worker` processes (run by tests/scaleout/test_club_evening_processes.py).

The scenario and the hand count are tests/support/club_evening.py's, as on the embedded
server (tests/tournaments/test_club_evening.py); what differs is who moves the evening on.
Here nobody calls a task or the sweep and nobody sets the clock: beat's sweep (every 5 s)
starts the event at its time, forfeits the no-show when his grace runs out and withdraws
him after his second absence, and starts rounds 2 and 3 when their pause is over (round 2
as the director edited its draft); the latency worker records each finished game (the
game_finished signal's task), finishing the rounds and the event; the batch worker
recomputes the ratings after the correction, the ratings worker rates each game.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from ratings import services as rating_services
from tests.support import club_evening as evening
from tests.support.processes import Worker, celery_processes, ran, wait_for
from tests.tournaments.helpers import latest_game, make_event, make_users, play_game
from tournaments import absence, services
from tournaments.models import Entrant, Result, Round, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

GRACE = timedelta(seconds=8)  # the director's grace for a no-show (the default is two minutes)
PAUSE = timedelta(seconds=20)  # between rounds: time for the director's late entrant and draft edit
SWEEP = timedelta(seconds=5)  # tournaments' beat sweep (migration 0002)
LATE = 15  # seconds of slack for a loaded machine, beyond the sweep's period
WAIT = 90  # seconds: the longest any step of the evening may take


def round_in(event, number, status):
    return Round.objects.filter(tournament=event, number=number, status=status).first()


def play_table(rt):
    """The players of one table play its game through the play service; the worker records it."""
    return play_game(latest_game(rt.table_id))


def forfeited_in_time(rt) -> None:
    """The no-show's game ended when his grace ran out, not before, and within a sweep after."""
    game = wait_for(lambda: (g := latest_game(rt.table_id)).is_over and g, "the no-show's forfeit", WAIT)
    waited = game.finished_at - game.started_at
    assert GRACE <= waited <= GRACE + SWEEP + timedelta(seconds=LATE), f"forfeited {waited} after the deal"


def test_issue15_a_club_evening_run_by_worker_and_beat_processes(client, tmp_path):
    workers = {
        "latency": Worker(settings.WORKER_QUEUES, concurrency=2),
        "batch": Worker(settings.BATCH_QUEUES, nice=True),
        "ratings": Worker((rating_services.queue_for("podkidnoy"),)),
    }
    director = evening.make_director()
    users = make_users(13)
    no_show, late_user = users[11], users[12]
    with celery_processes(tmp_path, workers) as logs:
        event = make_event(
            rounds=3,
            rated=True,
            starts_at=timezone.now() + timedelta(seconds=3),
            pause_between_rounds=PAUSE,
            no_show_grace=GRACE,
        )
        for user in users[:12]:  # each player enters himself
            services.do_register(tournament_id=event.pk, user=user)
        client.force_login(director)

        # ------------------------------------------------------------ round 1
        wait_for(lambda: round_in(event, 1, Round.Status.PLAYING), "beat to start the event", WAIT)
        event.refresh_from_db()
        assert event.status == Tournament.Status.RUNNING
        absent = Entrant.objects.get(tournament=event, user=no_show)
        first = evening.tables_of(event, 1)
        assert [len(rt.entrants) for rt in first] == [4, 4, 4]
        evening.players_come(event, 1, no_show)
        forfeit_rt = next(rt for rt in first if absent.pk in rt.entrants)
        adjudicated_rt, played_rt = [rt for rt in first if rt != forfeit_rt]
        set_places = evening.adjudicate(client, event, adjudicated_rt, director)
        played_game = play_table(played_rt)
        forfeited_in_time(forfeit_rt)
        evening.check_forfeit(forfeit_rt, absent)
        one = wait_for(lambda: round_in(event, 1, Round.Status.FINISHED), "round 1 recorded and finished", WAIT)
        second = Round.objects.get(tournament=event, number=2)
        assert second.status == Round.Status.SCHEDULED, "the pause: round 2 waits, its draft ready"
        evening.check_round_one(event, adjudicated_rt, forfeit_rt, absent)

        # --------------------------------------------- between rounds 1 and 2
        late = evening.add_late_entrant(client, event, late_user)
        edited = evening.edit_draft(client, event, 2)
        second.refresh_from_db()
        assert second.status == Round.Status.SCHEDULED, f"the director's edits took longer than the {PAUSE} pause"
        second = wait_for(lambda: round_in(event, 2, Round.Status.PLAYING), "beat to start round 2", WAIT)
        assert second.started_at - one.finished_at >= PAUSE, "round 2 started before its pause was over"
        assert [list(rt.entrants) for rt in evening.tables_of(event, 2)] == edited, "the round starts as edited"

        # ------------------------------------------------------------ round 2
        evening.players_come(event, 2, no_show)
        forfeit_rt = next(rt for rt in evening.tables_of(event, 2) if absent.pk in rt.entrants)
        for rt in evening.tables_of(event, 2):
            if rt != forfeit_rt:
                play_table(rt)
        forfeited_in_time(forfeit_rt)
        wait_for(
            lambda: Entrant.objects.get(pk=absent.pk).state == Entrant.State.WITHDRAWN,
            "the no-show withdrawn after two absences",
            WAIT,
        )
        assert absence.absences(absent.pk) == 2
        two = wait_for(lambda: round_in(event, 2, Round.Status.FINISHED), "round 2 recorded and finished", WAIT)
        evening.check_round_two(event, absent, late)

        # ------------------------------------ a correction of round 1's played game
        corrected = evening.correct_result(client, event, played_rt, played_game)
        adjudicated_game = Result.objects.filter(round_table=adjudicated_rt).first().game
        rated = [(played_game, corrected), (adjudicated_game, set_places)]
        wait_for(lambda: not evening.rating_mismatches(event, rated), "the ratings to follow the correction", WAIT)

        # ------------------------------------------------------------ round 3
        third_round = wait_for(lambda: round_in(event, 3, Round.Status.PLAYING), "beat to start round 3", WAIT)
        assert third_round.started_at - two.finished_at >= PAUSE
        third = evening.tables_of(event, 3)
        assert [len(rt.entrants) for rt in third] == [4, 4, 4], "12 in play: the withdrawn no-show is not seated"
        assert absent.pk not in third_round.byes and all(absent.pk not in rt.entrants for rt in third)
        evening.players_come(event, 3, no_show)
        for rt in third:
            play_table(rt)
        wait_for(
            lambda: Tournament.objects.get(pk=event.pk).status == Tournament.Status.FINISHED,
            "the worker to record the last games and finish the event",
            WAIT,
        )
        evening.check_final(event, absent, late)
        assert evening.rating_mismatches(event, rated) == [], "the event's final recomputation keeps them"
        latency, batch, ratings = (logs[name].read_text() for name in ("latency", "batch", "ratings"))
    # The processes did the work: the latency worker recorded games and ran the sweeps,
    # the batch worker the recomputations.
    assert ran(latency, "tournaments.tasks.record_game") and ran(latency, "tournaments.tasks.sweep_events")
    assert ran(batch, "ratings.tasks.recompute") and not ran(latency, "ratings.tasks.recompute")
    assert ran(ratings, "ratings.tasks.rate_game")
