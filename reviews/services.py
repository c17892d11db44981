"""Writes: asking for a review and computing it, one transaction each.

- `do_request_review(game_id, user)`: a participant of a finished game asks
  for the review of his own seat. Asking again gives the same review (one per
  seat, `one_review_per_seat`); a failed review, or one whose worker message
  seems lost (pending or running for `STALLED_AFTER`), is sent again.
- `do_run_review(review_id)`: what the Celery task does. It re-derives all
  from the database (the game's seed and move log), judges every decision of
  the seat that had a choice and was the player's own (not a bot's, the
  autopilot's or a timeout's), in parts of a few seconds (each part sends the
  task again for the rest). A repeat changes nothing: a part already written
  is not written again, and a done review is left as it is.
- `do_sweep_reviews()`: the beat's safety net (every `SWEEP_SECONDS`, created
  by migration 0002). A review waiting for its next part (pending, or running
  between two parts) whose task was last sent more than `SWEEP_AFTER` ago is
  sent again: a lost message never leaves a review waiting forever.

The analysis reads, at each decision, only `position.view(seat)`: what the
player could see then, never another hand or the stock.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import selectors as game_selectors
from games.errors import Refusal
from reviews import analysis
from reviews.models import Review, ReviewedDecision

log = logging.getLogger(__name__)

RUN_TASK = "reviews.tasks.run_review"
PLAYER = "player"  # games.models.Move.Source.PLAYER (contract 2: no import of games.models)
STALLED_AFTER = timedelta(minutes=10)
SWEEP_TASK = "reviews.tasks.sweep_reviews"
SWEEP_SECONDS = 30
# A part takes about DEFAULT_CHUNK_SECONDS once a worker has it; a task sent this long
# ago with nothing come of it was lost (a repeated one only does the same work again).
SWEEP_AFTER = timedelta(minutes=1)
SWEEP_BATCH = 200
# About this much work per task run, so that bot moves on the same queue wait for no longer.
DEFAULT_CHUNK_SECONDS = 2.0


class ReviewRefused(Refusal):
    """A review the server will not make or show."""


def thresholds() -> analysis.Thresholds:
    return analysis.Thresholds(
        inaccuracy=getattr(settings, "REVIEW_INACCURACY", analysis.DEFAULT_THRESHOLDS["inaccuracy"]),
        mistake=getattr(settings, "REVIEW_MISTAKE", analysis.DEFAULT_THRESHOLDS["mistake"]),
        blunder=getattr(settings, "REVIEW_BLUNDER", analysis.DEFAULT_THRESHOLDS["blunder"]),
    )


def budget() -> tuple[int, int]:
    """(deals, playouts) per decision."""
    return (
        int(getattr(settings, "REVIEW_DEALS", analysis.DEFAULT_DEALS)),
        int(getattr(settings, "REVIEW_PLAYOUTS", analysis.DEFAULT_PLAYOUTS)),
    )


def queue_for(variant: str) -> str:
    """Reviews run on the game's variant queue (contract 6), beside its bots."""
    return variant if variant in ("podkidnoy", "perevodnoy") else "default"


def enqueue_run_review(review_id: int, variant: str) -> None:
    """Nudge a worker once the transaction commits (the review row is the truth)."""

    def send():
        try:
            current_app.send_task(RUN_TASK, args=[review_id], queue=queue_for(variant))
        except Exception:  # a lost nudge is re-sent when the player asks again
            log.exception("could not send the review task of review %s", review_id)

    transaction.on_commit(send)


def do_request_review(game_id: int, user) -> Review:
    """The review of `user`'s seat in finished game `game_id`, created and sent if new."""
    if user is None or not user.is_authenticated:
        raise ReviewRefused(_("Log in to ask for a review of your game."), code="not_logged_in")
    game = game_selectors.finished_game_log(game_id)
    if game is None:
        raise ReviewRefused(_("Only a finished game can be reviewed."), code="not_finished")
    seats = [number for number, user_id in game["seats"].items() if user_id == user.pk]
    if not seats:
        raise ReviewRefused(_("Only a player of this game can ask for its review."), code="not_participant")
    seat = seats[0]
    limits = thresholds()
    deals, playouts = budget()
    with transaction.atomic():
        # get_or_create settles two requests at the same moment (one_review_per_seat).
        review, created = Review.objects.get_or_create(
            game_id=game_id,
            seat=seat,
            defaults={
                "user": user,
                "inaccuracy": limits.inaccuracy,
                "mistake": limits.mistake,
                "blunder": limits.blunder,
                "deals": deals,
                "playouts": playouts,
            },
        )
        review = Review.objects.select_for_update().get(pk=review.pk)
        stalled = review.status in (Review.Status.PENDING, Review.Status.RUNNING) and (
            (review.started_at or review.requested_at) < timezone.now() - STALLED_AFTER
        )
        again = review.status == Review.Status.FAILED or stalled
        if again:
            review.status = Review.Status.PENDING
            review.started_at = None
        if created or again:
            review.nudged_at = timezone.now()
            review.save(update_fields=["status", "started_at", "nudged_at"])
            enqueue_run_review(review.pk, game["variant"])
    return review


def chunk_seconds() -> float:
    return float(getattr(settings, "REVIEW_CHUNK_SECONDS", DEFAULT_CHUNK_SECONDS))


def do_run_review(review_id: int) -> int:
    """Judge the next part of a review (the task's work); returns how many decisions it judged.

    The worker that runs reviews also moves the bots of live games (the variant
    queue; in the embedded mode one thread does everything), so a review is
    judged in parts of about `REVIEW_CHUNK_SECONDS` each: every part stores its
    judgements and the move it reached (`progress`), then sends the task again
    for the rest. The long analysis runs outside any transaction; a part is
    written only if no other worker wrote it meanwhile (a repeated message does
    the same work twice, never writes it twice). A done review, or a missing
    one, is left alone (0).
    """
    with transaction.atomic():
        review = Review.objects.select_for_update().filter(pk=review_id).first()
        if review is None or review.status in (Review.Status.DONE, Review.Status.FAILED):
            return 0
        if review.status == Review.Status.PENDING:
            review.status = Review.Status.RUNNING
            review.started_at = timezone.now()
            review.save(update_fields=["status", "started_at"])
    start = review.progress
    try:
        variant, judgements, reached, finished = judge_seat(review, start=start, seconds=chunk_seconds())
    except Exception:
        log.exception("review %s failed", review_id)
        Review.objects.filter(pk=review_id).exclude(status=Review.Status.DONE).update(
            status=Review.Status.FAILED, finished_at=timezone.now()
        )
        raise
    with transaction.atomic():
        review = Review.objects.select_for_update().get(pk=review_id)
        if review.status != Review.Status.RUNNING or review.progress != start:
            return 0  # another worker wrote this part (or the review was reset)
        ReviewedDecision.objects.filter(review=review, move_number__gte=start).delete()
        ReviewedDecision.objects.bulk_create(
            ReviewedDecision(
                review=review,
                move_number=number,
                played=j.played,
                best=j.best,
                value_played=j.value_played,
                value_best=j.value_best,
                drop=j.drop,
                label=j.label,
            )
            for number, j in judgements
        )
        review.progress = reached
        review.decisions = ReviewedDecision.objects.filter(review=review).count()
        fields = ["progress", "decisions"]
        if finished:
            review.status = Review.Status.DONE
            review.finished_at = timezone.now()
            fields += ["status", "finished_at"]
        else:
            review.nudged_at = timezone.now()
            fields.append("nudged_at")
        review.save(update_fields=fields)
        if not finished:
            enqueue_run_review(review.pk, variant)
    return len(judgements)


def _waiting(now):
    """Reviews waiting for a part whose task was last sent more than SWEEP_AFTER before `now`."""
    cutoff = now - SWEEP_AFTER
    return Review.objects.filter(status__in=(Review.Status.PENDING, Review.Status.RUNNING)).filter(
        Q(nudged_at__lt=cutoff) | Q(nudged_at__isnull=True, requested_at__lt=cutoff)
    )


def do_sweep_reviews(now=None) -> int:
    """Send the task again for every review whose last one seems lost (see the module
    docstring); returns how many were sent. Idempotent: each review is re-read under
    its lock, and a review just sent waits SWEEP_AFTER before the next sweep sends it
    again; the task itself re-derives everything from the database."""
    now = now or timezone.now()
    sent = 0
    waiting = list(_waiting(now).order_by("requested_at").values_list("pk", "game__variant")[:SWEEP_BATCH])
    for review_id, variant in waiting:
        with transaction.atomic():
            review = _waiting(now).select_for_update().filter(pk=review_id).first()
            if review is None:  # done, or sent again meanwhile
                continue
            review.nudged_at = now
            review.save(update_fields=["nudged_at"])
            enqueue_run_review(review.pk, variant)
        sent += 1
    if sent:
        log.info("sent the task again for %d waiting reviews", sent)
    return sent


def judge_seat(review: Review, *, start: int = 0, seconds: float | None = None):
    """Replay the game from its seed and log and judge the seat's own decisions from
    move `start` on, stopping after the first move that ends `seconds` of work.

    Returns (variant, [(move number, judgement)], the move number reached, finished?).
    """
    game = game_selectors.finished_game_log(review.game_id)
    if game is None:
        raise ValueError(f"game {review.game_id} is not a finished game")
    limits = analysis.Thresholds(inaccuracy=review.inaccuracy, mistake=review.mistake, blunder=review.blunder)
    position = game["first_position"]
    moves = game["moves"]
    judgements = []
    began = time.perf_counter()
    reached = start
    for number, seat, action, source in moves:
        if number >= start:
            if seat == review.seat and source == PLAYER and len(position.legal_actions(seat)) > 1:
                judgement = analysis.judge(
                    position.view(seat), action, limits, deals=review.deals, playouts=review.playouts
                )
                if judgement is not None:
                    judgements.append((number, judgement))
            reached = number + 1
        position.act(seat, action)
        if seconds is not None and number >= start and time.perf_counter() - began >= seconds:
            break
    finished = reached >= len(moves)
    return game["variant"], judgements, reached, finished
