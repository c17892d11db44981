"""Writes: asking for a review and computing it, one transaction each.

- `do_request_review(game_id, user)`: a participant of a finished game asks
  for the review of his own seat. Asking again gives the same review (one per
  seat, `one_review_per_seat`, and one seat per person in a game); a failed
  review, or one whose message is lost (`_lost`), is sent again. A person
  asks for at most `REVIEWS_PER_DAY` new reviews in any 24 hours (counted in
  the database, under the lock of his user row).
- `do_run_review(review_id, nudge)`: what the Celery task does, on the batch
  queue (`queue_for`), whose worker runs nothing of live play. It re-derives
  all from the database (the game's seed and move log), judges every decision
  of the seat that had a choice and was the player's own (not a bot's, the
  autopilot's or a timeout's), in parts of `REVIEW_CHUNK_SECONDS` each (a
  deadline checked between deals of every evaluation: `judge_seat`); each part
  sends the task again for the rest. A repeat changes nothing: a message that
  is not the review's last one sent (`nudges`) is dropped unread, a part
  already written is not written again, and a done review is left as it is.
- `do_sweep_reviews()`: the beat's safety net (every `SWEEP_SECONDS`, created
  by migration 0002). It sends the task again only for a review whose message
  is lost, never for one still queued: a message is lost when it was sent
  before this process's in-memory broker started, when a message sent after it
  was taken already (the queue is first in, first out), when its send failed,
  when the worker that took it has written nothing for `lease()` (twice the
  part's budget, and more), or, with none of these signs, after `LOST_AFTER`.

The analysis reads, at each decision, only `position.view(seat)`: what the
player could see then, never another hand or the stock.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import selectors as game_selectors
from games.choices import MoveSource
from games.errors import Refusal
from reviews import analysis
from reviews.models import Review, ReviewedDecision

log = logging.getLogger(__name__)

RUN_TASK = "reviews.tasks.run_review"
SWEEP_TASK = "reviews.tasks.sweep_reviews"
SWEEP_SECONDS = 30
SWEEP_BATCH = 200
# The batch queue (settings.BATCH_QUEUE): its own worker, never bot moves or timers.
BATCH_QUEUE = "batch"
# At most this much work per task run (a deadline inside the evaluation), so that the
# batch queue's other work waits no longer and a lost part is noticed soon.
DEFAULT_CHUNK_SECONDS = 2.0
# Beyond twice the part's budget, this long again for a busy machine (lease()).
LEASE_MARGIN = timedelta(seconds=30)
# A message still outstanding after this long, with no sign either way, is taken as lost
# (Redis redelivers an unacknowledged message after its visibility timeout, one hour).
LOST_AFTER = timedelta(hours=1)
DEFAULT_REVIEWS_PER_DAY = 20
# Messages sent before the process started are gone when the broker lives in the process.
PROCESS_STARTED = timezone.now()


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


def queue_for(variant: str | None = None) -> str:
    """Reviews run on the batch queue, whatever the variant: its worker moves no bots."""
    return getattr(settings, "BATCH_QUEUE", BATCH_QUEUE)


def reviews_per_day() -> int:
    return int(getattr(settings, "REVIEWS_PER_DAY", DEFAULT_REVIEWS_PER_DAY))


def lease() -> timedelta:
    """How long a worker that took a part may write nothing before the part counts as lost."""
    return 2 * timedelta(seconds=chunk_seconds()) + LEASE_MARGIN


def _send_next(review: Review, now) -> None:
    """Inside the caller's transaction: number the review's next message and send it on commit."""
    review.nudges += 1
    review.nudged_at = now
    review.save(update_fields=["nudges", "nudged_at"])
    enqueue_run_review(review.pk, review.nudges)


def enqueue_run_review(review_id: int, nudge: int | None = None) -> None:
    """Nudge a worker once the transaction commits (the review row is the truth).

    A send that fails clears `nudged_at`: no message is outstanding, so the sweep
    sends it again within `lease()`."""

    def send():
        try:
            current_app.send_task(RUN_TASK, args=[review_id, nudge], queue=queue_for())
        except Exception:
            log.exception("could not send the review task of review %s", review_id)
            Review.objects.filter(pk=review_id, nudges=nudge).update(nudged_at=None)

    transaction.on_commit(send)


def _outstanding(review: Review) -> bool:
    """A message was sent and no worker has taken it yet."""
    return review.nudged_at is not None and (review.taken_at is None or review.taken_at < review.nudged_at)


def _latest_taken_sent(now):
    """When the latest message that some worker took had been sent (any review's, of
    the last LOST_AFTER: an older one proves nothing LOST_AFTER does not)."""
    return (
        Review.objects.filter(taken_sent_at__gte=now - LOST_AFTER).aggregate(latest=Max("taken_sent_at")).get("latest")
    )


def _lost(review: Review, now, latest_taken_sent=None) -> bool:
    """Is the waiting review's last message lost (see the module docstring)? A message
    still queued behind others is not: the queue is worked in order, parts are short."""
    if review.status not in (Review.Status.PENDING, Review.Status.RUNNING):
        return False
    if not _outstanding(review):
        # Taken (or never sent): lost when nothing has been written for a lease.
        since = review.taken_at or review.requested_at
        return since < now - lease()
    if review.nudged_at < PROCESS_STARTED and current_app.conf.broker_url.startswith("memory://"):
        return True
    if latest_taken_sent is not None and review.nudged_at < latest_taken_sent - lease():
        return True
    return review.nudged_at < now - LOST_AFTER


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
        now = timezone.now()
        if not Review.objects.filter(game_id=game_id, seat=seat).exists():
            # The person's row lock makes two requests at once count one after the other.
            list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
            asked = Review.objects.filter(user=user, requested_at__gte=now - timedelta(days=1)).count()
            if asked >= reviews_per_day():
                raise ReviewRefused(
                    _("You have asked for the most reviews allowed in a day (%(limit)d). Try again later.")
                    % {"limit": reviews_per_day()},
                    code="daily_limit",
                )
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
        again = review.status == Review.Status.FAILED or (not created and _lost(review, now, _latest_taken_sent(now)))
        if again:
            review.status = Review.Status.PENDING
            review.started_at = None
            review.save(update_fields=["status", "started_at"])
        if created or again:
            _send_next(review, now)
    return review


def chunk_seconds() -> float:
    return float(getattr(settings, "REVIEW_CHUNK_SECONDS", DEFAULT_CHUNK_SECONDS))


def do_run_review(review_id: int, nudge: int | None = None) -> int:
    """Judge the next part of a review (the task's work); returns how many decisions it judged.

    A review is judged in parts of at most `REVIEW_CHUNK_SECONDS` each (the
    batch queue's other work waits no longer, and the sweep's lease stays
    short): every part stores its judgements and the move it reached
    (`progress`), then sends the task again for the rest. A message numbered
    `nudge` that is not the review's last one sent is dropped (0): the sweep or
    the player sent a newer one, which does the work. The long analysis runs
    outside any transaction; a part is written only if no other worker wrote it
    meanwhile (a repeated message does the same work twice, never writes it
    twice). A done review, or a missing one, is left alone (0).
    """
    with transaction.atomic():
        review = Review.objects.select_for_update().filter(pk=review_id).first()
        if review is None or review.status in (Review.Status.DONE, Review.Status.FAILED):
            return 0
        if nudge is not None and nudge != review.nudges:
            return 0
        now = timezone.now()
        review.taken_at = now
        review.taken_sent_at = review.nudged_at
        fields = ["taken_at", "taken_sent_at"]
        if review.status == Review.Status.PENDING:
            review.status = Review.Status.RUNNING
            review.started_at = now
            fields += ["status", "started_at"]
        review.save(update_fields=fields)
    start = review.progress
    try:
        _variant, judgements, reached, finished = judge_seat(review, start=start, seconds=chunk_seconds())
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
        review.save(update_fields=fields)
        if not finished:
            _send_next(review, timezone.now())
    return len(judgements)


def do_sweep_reviews(now=None) -> int:
    """Send the task again for every waiting review whose last message is lost (see the
    module docstring), never for one still queued; returns how many were sent.
    Idempotent: each review is re-read under its lock, a review just sent is
    outstanding again, and the task itself re-derives everything from the database."""
    now = now or timezone.now()
    latest_taken_sent = _latest_taken_sent(now)
    sent = 0
    waiting = Review.objects.filter(status__in=(Review.Status.PENDING, Review.Status.RUNNING))
    candidates = [
        review.pk
        for review in waiting.order_by("requested_at").only(
            "pk", "status", "requested_at", "nudged_at", "taken_at", "nudges"
        )
        if _lost(review, now, latest_taken_sent)
    ]
    for review_id in candidates[:SWEEP_BATCH]:
        with transaction.atomic():
            review = waiting.select_for_update().filter(pk=review_id).first()
            if review is None or not _lost(review, now, latest_taken_sent):  # done, or taken meanwhile
                continue
            _send_next(review, now)
        sent += 1
    if sent:
        log.info("sent the task again for %d waiting reviews", sent)
    return sent


def judge_seat(review: Review, *, start: int = 0, seconds: float | None = None):
    """Replay the game from its seed and log and judge the seat's own decisions from
    move `start` on, for `seconds` of work at most.

    The budget is a deadline, checked between every two deals of an evaluation
    (one decision may cost more than the whole budget: 2,400 playouts of a
    four-seat game took 2-7 s): a decision that the deadline cuts short is left
    for the next part, unless it is the part's first, which is then judged on the
    deals that fitted (so every part moves on). Returns (variant,
    [(move number, judgement)], the move number reached, finished?).
    """
    game = game_selectors.finished_game_log(review.game_id)
    if game is None:
        raise ValueError(f"game {review.game_id} is not a finished game")
    limits = analysis.Thresholds(inaccuracy=review.inaccuracy, mistake=review.mistake, blunder=review.blunder)
    position = game["first_position"]
    moves = game["moves"]
    judgements = []
    deadline = None if seconds is None else time.perf_counter() + seconds
    reached = start
    evaluated = False
    for number, seat, action, source in moves:
        if number >= start:
            if deadline is not None and evaluated and time.perf_counter() >= deadline:
                break
            if seat == review.seat and source == MoveSource.PLAYER and len(position.legal_actions(seat)) > 1:
                judgement = analysis.judge(
                    position.view(seat),
                    action,
                    limits,
                    deals=review.deals,
                    playouts=review.playouts,
                    deadline=deadline,
                )
                if judgement is not None and judgement.cut and evaluated:
                    break  # cut short: judged in full by the next part
                evaluated = True
                if judgement is not None:
                    judgements.append((number, judgement))
            reached = number + 1
        position.act(seat, action)
    finished = reached >= len(moves)
    return game["variant"], judgements, reached, finished
