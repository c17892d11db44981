"""Issue 16, "What was seen" 2: "the sweep re-sent waiting reviews 373 times in 14
minutes and the queue grew from 90 to 474 messages". The sweep (and asking again)
sends a review's task again only when its message is lost, never while it is
queued behind others; a message that is not the review's last one sent is
dropped unread."""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery import current_app
from django.utils import timezone

from reviews import services, tasks
from reviews.models import Review, ReviewedDecision
from tests.support.games import open_game, play_to_end

pytestmark = pytest.mark.django_db
assert tasks.run_review.name == services.RUN_TASK  # registered with the app
JUDGE_SEAT = services.judge_seat


@pytest.fixture
def games(players):
    users = players[:2]
    return [play_to_end(open_game(users), users) for _ in range(3)]


def request_all(games, user, on_commit):
    with on_commit(execute=True):
        return [services.do_request_review(game.pk, user) for game in games]


def take(sent_tasks, review, on_commit):
    """A worker takes the review's message (the first one sent for it) and runs it."""
    message = next(m for m in sent_tasks if m[1][0] == review.pk)
    sent_tasks.remove(message)
    with on_commit(execute=True):
        return current_app.tasks[message[0]].apply(args=message[1]).get()


def test_messages_queued_behind_others_are_never_sent_again(
    games, players, sent_tasks, django_capture_on_commit_callbacks
):
    reviews = request_all(games, players[0], django_capture_on_commit_callbacks)
    assert [args for _, args, _ in sent_tasks] == [[r.pk, 1] for r in reviews]
    # The batch worker is busy: half an hour later (the old sweep re-sent after one
    # minute) nothing is sent again ...
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=timezone.now() + timedelta(minutes=30)) == 0
        # ... nor when the player asks again.
        services.do_request_review(games[1].pk, players[0])
    assert len(sent_tasks) == 3
    # The worker takes them in order: what is behind is still queued, not lost.
    assert take(sent_tasks, reviews[0], django_capture_on_commit_callbacks) > 0
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=timezone.now() + timedelta(minutes=30)) == 0
    assert [args for _, args, _ in sent_tasks] == [[r.pk, 1] for r in reviews[1:]]


@pytest.fixture
def long_running_process(monkeypatch, settings):
    """The worker process started long ago: messages are lost only by the queue's order,
    not by having been sent before the process's in-memory broker existed. (This test
    once passed only when its worker process was younger than five minutes.) A part's
    budget of a minute: these games are judged in one part, and the lease is 2.5 minutes."""
    monkeypatch.setattr(services, "PROCESS_STARTED", timezone.now() - timedelta(hours=2))
    settings.REVIEW_CHUNK_SECONDS = 60


def test_a_message_skipped_by_the_queue_is_lost_and_sent_again_once(
    games, players, sent_tasks, django_capture_on_commit_callbacks, long_running_process
):
    reviews = request_all(games[:2], players[0], django_capture_on_commit_callbacks)
    # The first review's message was sent long before the second's, which a worker took:
    # the queue is first in, first out, so the first one is lost.
    Review.objects.filter(pk=reviews[0].pk).update(nudged_at=timezone.now() - timedelta(minutes=5))
    sent_tasks.pop(0)
    take(sent_tasks, reviews[1], django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews() == 1
        assert services.do_sweep_reviews() == 0
    assert sent_tasks == [("reviews.tasks.run_review", [reviews[0].pk, 2], "batch")]


def test_a_message_that_is_not_the_last_one_sent_is_dropped_unread(
    games, players, sent_tasks, django_capture_on_commit_callbacks, monkeypatch
):
    (review,) = request_all(games[:1], players[0], django_capture_on_commit_callbacks)
    Review.objects.filter(pk=review.pk).update(nudges=2)  # the sweep sent a newer one meanwhile
    judged = []
    monkeypatch.setattr(services, "judge_seat", lambda *a, **k: judged.append(a) or pytest.fail("judged"))
    assert services.do_run_review(review.pk, 1) == 0
    assert judged == [] and Review.objects.get(pk=review.pk).taken_at is None
    monkeypatch.setattr(services, "judge_seat", JUDGE_SEAT)
    assert services.do_run_review(review.pk, 2) > 0


def test_a_part_whose_worker_died_is_sent_again_after_the_lease(
    games, players, sent_tasks, django_capture_on_commit_callbacks, monkeypatch
):
    (review,) = request_all(games[:1], players[0], django_capture_on_commit_callbacks)
    sent_tasks.clear()
    # The worker takes the message and dies in the middle of the part (SIGKILL).
    monkeypatch.setattr(services, "judge_seat", lambda *a, **k: (_ for _ in ()).throw(SystemExit))
    with pytest.raises(SystemExit):
        services.do_run_review(review.pk, 1)
    monkeypatch.setattr(services, "judge_seat", JUDGE_SEAT)
    review.refresh_from_db()
    assert review.status == "running" and review.taken_at is not None
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=review.taken_at + services.lease() - timedelta(seconds=1)) == 0
        assert services.do_sweep_reviews(now=review.taken_at + services.lease() + timedelta(seconds=1)) == 1
    assert sent_tasks == [("reviews.tasks.run_review", [review.pk, 2], "batch")]
    assert services.lease() == timedelta(seconds=2 * 3600) + services.LEASE_MARGIN  # REVIEW_CHUNK_SECONDS=3600 here


def test_a_send_that_failed_is_sent_again_after_the_lease(
    games, players, monkeypatch, settings, django_capture_on_commit_callbacks
):
    settings.REVIEW_CHUNK_SECONDS = 2

    def broken(*args, **kwargs):
        raise ConnectionError("broker away")

    monkeypatch.setattr(current_app, "send_task", broken)
    (review,) = request_all(games[:1], players[0], django_capture_on_commit_callbacks)
    review.refresh_from_db()
    assert review.nudged_at is None  # no message outstanding
    sent = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args=None, queue=None, **kw: sent.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=review.requested_at + timedelta(seconds=5)) == 0
        assert services.do_sweep_reviews(now=review.requested_at + services.lease() + timedelta(seconds=1)) == 1
    assert sent == [[review.pk, 2]]


def test_messages_sent_before_the_in_memory_broker_started_are_lost(
    games, players, sent_tasks, monkeypatch, django_capture_on_commit_callbacks
):
    """The embedded mode keeps its queues in the process: a restart loses them all."""
    assert current_app.conf.broker_url.startswith("memory://")
    (review,) = request_all(games[:1], players[0], django_capture_on_commit_callbacks)
    sent_tasks.clear()
    monkeypatch.setattr(services, "PROCESS_STARTED", timezone.now() + timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews() == 1
    assert sent_tasks == [("reviews.tasks.run_review", [review.pk, 2], "batch")]


def test_a_repeated_part_after_a_new_message_does_the_work_once(
    games, players, sent_tasks, django_capture_on_commit_callbacks
):
    (review,) = request_all(games[:1], players[0], django_capture_on_commit_callbacks)
    later = timezone.now() + services.LOST_AFTER + timedelta(seconds=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews(now=later) == 1  # the first message is taken as lost ...
    first, second = sent_tasks
    with django_capture_on_commit_callbacks(execute=True):
        assert current_app.tasks[first[0]].apply(args=first[1]).get() == 0  # ... and arrives late: dropped
        assert current_app.tasks[second[0]].apply(args=second[1]).get() > 0
    review.refresh_from_db()
    assert review.status == "done" and ReviewedDecision.objects.filter(review=review).count() == review.decisions


def test_a_part_that_sends_the_rest_still_proves_the_queue_reached_its_message(
    games, players, sent_tasks, django_capture_on_commit_callbacks, long_running_process, settings
):
    # A full run saw this: the taken review's part ran out of its budget and sent the rest,
    # which moved its `nudged_at` past `taken_at`, and the lost message was never sent again.
    settings.REVIEW_CHUNK_SECONDS = 0.0001
    reviews = request_all(games[:2], players[0], django_capture_on_commit_callbacks)
    Review.objects.filter(pk=reviews[0].pk).update(nudged_at=timezone.now() - timedelta(minutes=5))
    sent_tasks.pop(0)
    take(sent_tasks, reviews[1], django_capture_on_commit_callbacks)
    second = Review.objects.get(pk=reviews[1].pk)
    assert second.status == Review.Status.RUNNING and second.nudged_at > second.taken_at  # the rest was sent
    with django_capture_on_commit_callbacks(execute=True):
        assert services.do_sweep_reviews() == 1
    assert ("reviews.tasks.run_review", [reviews[0].pk, 2], "batch") in sent_tasks
