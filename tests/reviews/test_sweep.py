"""A review whose Celery message was lost is not left waiting forever: the beat's
sweep sends its task again, and the task re-derives everything from the database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery import current_app
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from reviews import services
from reviews.models import Review, ReviewedDecision
from reviews.tasks import sweep_reviews
from tests.support.games import open_game, play_to_end

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(players):
    users = players[:2]
    return play_to_end(open_game(users), users)


def deliver(sent_tasks, on_commit):
    """A worker takes the messages sent so far (and those their tasks send), in order."""
    while sent_tasks:
        name, args, _queue = sent_tasks.pop(0)
        with on_commit(execute=True):
            current_app.tasks[name].apply(args=args).get()


def lose_messages(sent_tasks):
    sent_tasks.clear()


def test_a_pending_review_whose_message_was_lost_is_computed_after_the_sweep(
    finished, players, sent_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        review = services.do_request_review(finished.pk, players[0])
    lose_messages(sent_tasks)
    # Nothing happens by itself: the review waits.
    assert Review.objects.get(pk=review.pk).status == "pending"

    # While nothing says the message is lost, the sweep leaves it alone (it may be queued).
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_reviews.apply().get() == 0
        assert services.do_sweep_reviews(now=timezone.now() + timedelta(minutes=30)) == 0
    assert sent_tasks == []

    later = timezone.now() + services.LOST_AFTER + timedelta(seconds=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=later) == 1
    assert sent_tasks == [("reviews.tasks.run_review", [review.pk, 2], "batch")]
    # A second sweep right after sends nothing more: the review waits for the message just sent.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=later) == 0
    assert len(sent_tasks) == 1

    deliver(sent_tasks, django_capture_on_commit_callbacks)
    review.refresh_from_db()
    assert review.status == "done" and review.finished_at is not None
    assert review.decisions == ReviewedDecision.objects.filter(review=review).count() > 0


def test_a_review_that_lost_the_message_of_its_next_part_is_taken_up_again(
    finished, players, sent_tasks, settings, django_capture_on_commit_callbacks
):
    settings.REVIEW_CHUNK_SECONDS = 0  # the first decision is its own part
    with django_capture_on_commit_callbacks(execute=True):
        review = services.do_request_review(finished.pk, players[0])
    with django_capture_on_commit_callbacks(execute=True):
        name, args, _ = sent_tasks.pop(0)
        current_app.tasks[name].apply(args=args).get()  # the first part runs ...
    lose_messages(sent_tasks)  # ... and the message for the second is lost
    review.refresh_from_db()
    assert review.status == "running" and 0 < review.progress < finished.move_count

    settings.REVIEW_CHUNK_SECONDS = 3600
    later = timezone.now() + services.LOST_AFTER + timedelta(seconds=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=later) == 1
    deliver(sent_tasks, django_capture_on_commit_callbacks)
    review.refresh_from_db()
    assert review.status == "done" and review.progress == finished.move_count


def test_done_and_failed_reviews_are_not_swept(finished, players, sent_tasks, django_capture_on_commit_callbacks):
    mine = services.do_request_review(finished.pk, players[0])
    his = services.do_request_review(finished.pk, players[1])
    Review.objects.filter(pk=mine.pk).update(status="done")
    Review.objects.filter(pk=his.pk).update(status="failed")
    lose_messages(sent_tasks)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=timezone.now() + timedelta(hours=1)) == 0
    assert sent_tasks == []


def test_the_sweep_is_a_periodic_task_on_the_default_queue():
    row = PeriodicTask.objects.get(task="reviews.tasks.sweep_reviews")
    assert row.enabled and row.queue == "default"
    assert (row.interval.every, row.interval.period) == (services.SWEEP_SECONDS, "seconds")
    assert sweep_reviews.name == services.SWEEP_TASK
