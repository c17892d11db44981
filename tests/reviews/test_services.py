"""Asking for a review and computing it: who may, once only, and what is judged."""

from __future__ import annotations

import itertools
import time
import types

import pytest

from games import engine
from games.models import Move
from reviews import services
from reviews.models import Review, ReviewedDecision
from tests.support.games import open_game, play_to_end

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(players):
    users = players[:2]
    return play_to_end(open_game(users), users)


def test_a_stranger_may_not_ask_for_a_review(finished, players, sent_tasks, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.ReviewRefused) as refused:
        services.do_request_review(finished.pk, players[2])
    assert str(refused.value) == "Разбор партии может заказать только её участник."
    assert Review.objects.count() == 0
    assert sent_tasks == []


def test_a_game_being_played_cannot_be_reviewed(players, sent_tasks):
    game = open_game(players[:2])
    with pytest.raises(services.ReviewRefused) as refused:
        services.do_request_review(game.pk, players[0])
    assert str(refused.value) == "Разобрать можно только законченную партию."
    assert Review.objects.count() == 0


def test_asking_twice_gives_one_review_on_the_batch_queue(
    finished, players, sent_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = services.do_request_review(finished.pk, players[0])
    with django_capture_on_commit_callbacks(execute=True):
        second = services.do_request_review(finished.pk, players[0])
    assert first.pk == second.pk
    assert Review.objects.count() == 1
    assert first.seat == 0 and first.user == players[0] and first.status == "pending"
    assert (first.inaccuracy, first.mistake, first.blunder) == (0.05, 0.10, 0.20)
    # A pending review is not sent again on every click; it goes to the batch queue, whose
    # worker moves no bots (issue 16, "What was seen" 2: reviews shared the bots' queue).
    assert sent_tasks == [("reviews.tasks.run_review", [first.pk, 1], "batch")]


def test_the_opponent_gets_his_own_review(finished, players, sent_tasks):
    mine = services.do_request_review(finished.pk, players[0])
    his = services.do_request_review(finished.pk, players[1])
    assert mine.pk != his.pk and his.seat == 1


def test_running_twice_judges_the_same_decisions_once(finished, players, sent_tasks):
    review = services.do_request_review(finished.pk, players[0])
    count = services.do_run_review(review.pk)
    first = list(
        ReviewedDecision.objects.filter(review=review).values_list("move_number", "played", "best", "drop", "label")
    )
    assert count == len(first) > 0

    assert services.do_run_review(review.pk) == 0
    assert (
        list(
            ReviewedDecision.objects.filter(review=review).values_list("move_number", "played", "best", "drop", "label")
        )
        == first
    )

    # Even computed again from scratch (a lost "done"), the judgements are the same: seeded by the view.
    Review.objects.filter(pk=review.pk).update(status="pending")
    services.do_run_review(review.pk)
    again = list(
        ReviewedDecision.objects.filter(review=review).values_list("move_number", "played", "best", "drop", "label")
    )
    assert again == first
    review.refresh_from_db()
    assert review.status == "done" and review.decisions == len(first) and review.finished_at is not None


def test_only_the_players_own_decisions_with_a_choice_are_judged(finished, players, sent_tasks):
    review = services.do_request_review(finished.pk, players[0])
    services.do_run_review(review.pk)
    judged = dict(ReviewedDecision.objects.filter(review=review).values_list("move_number", "played"))
    log = {m.number: m for m in Move.objects.filter(game=finished)}
    assert judged
    for number, played in judged.items():
        assert log[number].seat == 0
        assert log[number].action == played
    # Every one of his decisions with two or more legal actions is there, and none without.
    from games.positions import deal_of

    position = deal_of(finished)
    expected = []
    for number in sorted(log):
        move = log[number]
        if move.seat == 0 and len(position.legal_actions(0)) > 1:
            expected.append(number)
        position.act(move.seat, move.action)
    assert sorted(judged) == expected


def test_moves_of_the_autopilot_are_not_his_decisions(finished, players, sent_tasks):
    Move.objects.filter(game=finished, seat=0).update(source="autopilot")
    review = services.do_request_review(finished.pk, players[0])
    assert services.do_run_review(review.pk) == 0
    review.refresh_from_db()
    assert review.status == "done"


def test_a_failed_review_can_be_asked_again(finished, players, sent_tasks, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        review = services.do_request_review(finished.pk, players[0])
    Review.objects.filter(pk=review.pk).update(status="failed")
    with django_capture_on_commit_callbacks(execute=True):
        again = services.do_request_review(finished.pk, players[0])
    assert again.pk == review.pk and again.status == "pending"
    assert len(sent_tasks) == 2


def test_the_task_runs_the_service(finished, players, sent_tasks):
    from reviews.tasks import run_review

    review = services.do_request_review(finished.pk, players[0])
    assert run_review.name == "reviews.tasks.run_review"
    assert run_review.apply(args=[review.pk]).get() > 0
    assert Review.objects.get(pk=review.pk).status == "done"


def test_perevodnoy_reviews_go_to_the_batch_queue_too(players, sent_tasks, django_capture_on_commit_callbacks):
    users = players[:3]
    game = play_to_end(open_game(users, engine.Rules(variant="perevodnoy", players=3)), users)
    with django_capture_on_commit_callbacks(execute=True):
        review = services.do_request_review(game.pk, players[2])
    assert sent_tasks == [("reviews.tasks.run_review", [review.pk, 1], "batch")]
    assert review.seat == 2


def test_a_review_in_parts_judges_the_same_and_sends_itself_on(
    finished, players, sent_tasks, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Parts of the work, each a task run of its own, so that other batch work never
    waits behind a whole review; the parts add up to the one-pass review."""
    review = services.do_request_review(finished.pk, players[0])
    services.do_run_review(review.pk)
    expected = list(review.judged.values_list("move_number", "played", "best", "drop", "label"))

    ReviewedDecision.objects.all().delete()
    Review.objects.filter(pk=review.pk).update(status="pending", progress=0, decisions=0)
    # One decision per part: the part's clock jumps by 1,000 s at every reading after
    # the first (the evaluations themselves, a few ms each, use the real one).
    settings.REVIEW_CHUNK_SECONDS = 0.5
    readings = itertools.count()
    clock = types.SimpleNamespace(perf_counter=lambda: time.perf_counter() + 1000 * next(readings))
    monkeypatch.setattr(services, "time", clock)
    runs = 0
    while Review.objects.get(pk=review.pk).status != "done":
        readings = itertools.count()
        with django_capture_on_commit_callbacks(execute=True):
            services.do_run_review(review.pk)
        runs += 1
        assert runs <= finished.move_count
    # A part ends before its second evaluated decision: one part per decision of his.
    evaluated = sum(1 for name, *_ in sent_tasks)
    assert runs == evaluated + 1 and len(expected) <= runs <= finished.move_count
    first = Review.objects.get(pk=review.pk).nudges - evaluated
    assert sent_tasks == [("reviews.tasks.run_review", [review.pk, first + n], "batch") for n in range(1, runs)]
    got = list(review.judged.values_list("move_number", "played", "best", "drop", "label"))
    assert got == expected
    assert Review.objects.get(pk=review.pk).decisions == len(expected)


def test_a_part_written_by_another_worker_meanwhile_is_not_written_again(finished, players, sent_tasks, monkeypatch):
    """Two workers got the same message: the one that finishes second writes nothing."""
    review = services.do_request_review(finished.pk, players[0])
    judge_seat = services.judge_seat

    def other_worker_first(review, **kw):
        result = judge_seat(review, **kw)
        Review.objects.filter(pk=review.pk).update(progress=result[2])  # the other worker's write
        return result

    monkeypatch.setattr(services, "judge_seat", other_worker_first)
    assert services.do_run_review(review.pk) == 0
    assert ReviewedDecision.objects.filter(review=review).count() == 0
    assert Review.objects.get(pk=review.pk).status == "running"


def test_a_visitor_must_log_in(finished, sent_tasks):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(services.ReviewRefused) as refused:
        services.do_request_review(finished.pk, AnonymousUser())
    assert str(refused.value) == "Войдите, чтобы заказать разбор своей партии."


def test_a_review_whose_message_was_lost_is_sent_again(
    finished, players, sent_tasks, django_capture_on_commit_callbacks
):
    """The database is the truth: a review whose message is lost (sent over an hour ago,
    never taken) is nudged again when asked."""
    from django.utils import timezone

    with django_capture_on_commit_callbacks(execute=True):
        review = services.do_request_review(finished.pk, players[0])
    Review.objects.filter(pk=review.pk).update(nudged_at=timezone.now() - services.LOST_AFTER * 2)
    with django_capture_on_commit_callbacks(execute=True):
        again = services.do_request_review(finished.pk, players[0])
    assert again.pk == review.pk and again.status == "pending"
    assert sent_tasks == [
        ("reviews.tasks.run_review", [review.pk, 1], "batch"),
        ("reviews.tasks.run_review", [review.pk, 2], "batch"),
    ]


def test_the_analysis_is_given_only_the_players_view(finished, players, sent_tasks, monkeypatch):
    """At each of his decisions the judge gets his seat's view (his hand, what was public)."""
    from reviews import analysis

    seen = []
    real_judge = analysis.judge

    def spying_judge(view, played, thresholds, **kw):
        seen.append(view)
        return real_judge(view, played, thresholds, **kw)

    monkeypatch.setattr(analysis, "judge", spying_judge)
    review = services.do_request_review(finished.pk, players[1])
    services.do_run_review(review.pk)
    assert seen
    from games.positions import deal_of

    position = deal_of(finished)
    views = iter(seen)
    for move in Move.objects.filter(game=finished).order_by("number"):
        if move.seat == 1 and len(position.legal_actions(1)) > 1:
            assert next(views) == position.view(1)
        position.act(move.seat, move.action)
    assert next(views, None) is None
