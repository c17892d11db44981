"""Issue 16, "Live play first": bot moves, turn timers and tournament steps on the
latency queues, whose worker runs nothing long; reviews and full rating
recomputations on the batch queue, with a worker of its own (and in the embedded
mode a thread of its own: tests/reviews/test_live_play_first.py)."""

from __future__ import annotations

import pytest
from celery import current_app
from django.conf import settings
from django_celery_beat.models import PeriodicTask

from ratings import services as ratings_services
from reviews import services

pytestmark = pytest.mark.django_db


def test_the_latency_and_batch_queues_are_apart():
    assert settings.WORKER_QUEUES == ("default", "podkidnoy", "perevodnoy")
    assert settings.BATCH_QUEUES == ("batch",) == (settings.BATCH_QUEUE,)
    assert services.queue_for("podkidnoy") == services.queue_for("perevodnoy") == "batch"


def test_a_message_sent_without_a_queue_is_routed_by_its_task():
    router = current_app.amqp.router
    assert router.route({}, services.RUN_TASK)["queue"].name == "batch"
    assert router.route({}, ratings_services.RECOMPUTE_TASK)["queue"].name == "batch"
    assert router.route({}, "games.tasks.sweep_due_games")["queue"].name == "default"


def test_recomputations_go_to_the_batch_queue_and_a_games_rating_to_its_variant(monkeypatch):
    sent = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args=None, queue=None, **kw: sent.append((name, queue)))
    ratings_services.enqueue_recompute("perevodnoy")
    ratings_services.enqueue_rate_game(7, "perevodnoy")
    assert sent == [(ratings_services.RECOMPUTE_TASK, "batch"), (ratings_services.RATE_TASK, "ratings-perevodnoy")]


def test_periodic_tasks_of_live_play_are_on_the_latency_queues_and_recomputations_on_batch():
    # Batch work by nature: the nightly recomputations and the nightly backup of the database.
    batch_tasks = {ratings_services.RECOMPUTE_TASK, "backups.tasks.nightly_backup"}
    for row in PeriodicTask.objects.exclude(name="celery.backend_cleanup"):
        if row.task in batch_tasks:
            assert row.queue == "batch", row.name
        else:
            assert row.queue != "batch", row.name
    assert PeriodicTask.objects.get(task=services.SWEEP_TASK).queue == "default"  # a short one
