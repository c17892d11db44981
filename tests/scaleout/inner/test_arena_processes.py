"""Issue 20, "Tests": the arena of 20 players over five (simulated) minutes on PostgreSQL +
Redis, moved on by real `celery beat` and `celery worker` processes (run by
tests/scaleout/test_arena_processes.py). The scenario and the checks are
tests/support/arena_evening.py's, as with the embedded worker and beat
(tests/tournaments/inner/test_arena_in_process.py); what differs is who moves the arena on:
beat's sweep starts it, the latency worker records each finished game and runs the seating
pass the record nudges, and makes the timeout moves of the tables the players' thread is not
at; the ratings worker has nothing to do (an arena here is not rated)."""

from __future__ import annotations

import pytest
from django.conf import settings

from tests.support import arena_evening as arena
from tests.support.processes import Worker, celery_processes, ran

pytestmark = pytest.mark.django_db(transaction=True)


def test_issue20_an_arena_of_20_runs_by_itself_with_worker_and_beat_processes(tmp_path):
    workers = {"latency": Worker(settings.WORKER_QUEUES, concurrency=2)}
    with celery_processes(tmp_path, workers) as logs:
        event = arena.make_arena()
        try:
            arena.play_the_arena(event)
        finally:
            latency = logs["latency"].read_text()
            print("latency worker's last lines:\n", "\n".join(latency.splitlines()[-40:]))
    measured = arena.check_the_arena(event)
    print("arena measured:", measured)
    assert ran(latency, "tournaments.tasks.record_game")
    assert ran(latency, "tournaments.tasks.arena_seating_pass")
    assert ran(latency, "tournaments.tasks.sweep_events")
