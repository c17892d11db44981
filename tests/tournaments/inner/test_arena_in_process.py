"""Issue 20: an arena of 20 players over five (simulated) minutes, run by the embedded
Celery worker and beat (threads of this process, in-memory broker) on a test database
FILE; and two seating passes at once in two threads on it. Run in a subprocess by
tests/tournaments/test_arena_embedded.py (the scenario: tests/support/arena_evening.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from durak_site import embedded
from tests.support import arena_evening as arena
from tests.tournaments.helpers import latest_game, play_game
from tournaments import services
from tournaments.models import RoundTable

pytestmark = pytest.mark.django_db(transaction=True)


def test_issue20_an_arena_of_20_runs_by_itself_with_the_embedded_worker_and_beat():
    event = arena.make_arena()
    runner = embedded.start_embedded_celery()
    try:
        arena.play_the_arena(event)
    finally:
        runner.stop()
    measured = arena.check_the_arena(event)
    print("arena measured:", measured)


def test_issue20_two_seating_passes_at_once_seat_nobody_twice():
    event = arena.make_arena(starts_in=timedelta(0))
    services.do_advance_event(tournament_id=event.pk, now=timezone.now())
    first = list(RoundTable.objects.filter(round__tournament=event).order_by("number"))
    assert len(first) == 5
    for rt in first:
        game = play_game(latest_game(rt.table_id))
        services.do_record_game(game_id=game.pk)
    assert sorted(arena.two_passes_at_once(event)) == [0, 5]
    seated = [pk for rt in RoundTable.objects.filter(round__tournament=event, done=False) for pk in rt.entrants]
    assert sorted(seated) == sorted(event.entrants.values_list("pk", flat=True)), "each once"
