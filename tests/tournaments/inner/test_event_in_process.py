"""An event run by Celery alone: without REDIS_URL the embedded worker and beat
(threads of this process, in-memory broker); with REDIS_URL and DATABASE_URL
(PostgreSQL) real `celery worker` and `celery beat` processes. Beat reads
django-celery-beat's database scheduler either way.

Nobody calls a task here. The beat's sweep starts round one at its time; the
players' moves go through the play service; the game_finished signal's task,
run by the worker on the variant's queue, records each game, finishes the
round and nudges the next one; the event ends by itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from durak_site import embedded
from tests.tournaments.helpers import latest_game, make_event, make_users, play_game
from tournaments import services
from tournaments.models import Round, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 40  # seconds; the sweep runs every 5


def wait_for(check, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"waited {WAIT} s for {what}")


def round_playing(event, number):
    return Round.objects.filter(tournament=event, number=number, status=Round.Status.PLAYING).first()


ROOT = Path(__file__).resolve().parents[3]


@contextmanager
def celery_running(tmp_path):
    if not settings.REDIS_URL:
        runner = embedded.start_embedded_celery()
        try:
            yield
        finally:
            runner.stop()
        return
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"
    celery = [sys.executable, "-m", "celery", "-A", "durak_site"]
    worker = [*celery, "worker", "-Q", ",".join(settings.WORKER_QUEUES), "-l", "info", "--concurrency", "2"]
    worker += ["--without-mingle", "--without-gossip", "-n", f"events-{os.getpid()}@%h"]
    processes = []
    try:
        for command, log in ((worker, worker_log), ([*celery, "beat", "-l", "info"], beat_log)):
            processes.append(
                subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
            )
        wait_for(lambda: "ready." in worker_log.read_text(), "the worker to start")
        yield
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_worker_and_beat_run_an_event_by_themselves(tmp_path):
    users = make_users(4)
    event = make_event(rounds=2, starts_at=timezone.now() + timedelta(seconds=2))
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    with celery_running(tmp_path):
        for number in (1, 2):
            round_ = wait_for(lambda n=number: round_playing(event, n), f"round {number} to start")
            for rt in round_.tables.all():
                play_game(latest_game(rt.table_id))
            wait_for(
                lambda r=round_: Round.objects.get(pk=r.pk).status == Round.Status.FINISHED,
                f"round {number} to be recorded and finished",
            )
        wait_for(lambda: Tournament.objects.get(pk=event.pk).status == Tournament.Status.FINISHED, "the end")
    event.refresh_from_db()
    assert event.round_set.count() == 2
    assert sum(len(r.results.all()) for r in event.round_set.all()) == 8
