"""Celery tasks: thin and idempotent; sent by name on the batch queue."""

from celery import shared_task

from reviews import services


@shared_task(name="reviews.tasks.run_review", acks_late=True)
def run_review(review_id: int, nudge: int | None = None) -> int:
    """Judge the next part of the review (a done review, or an older message, is left alone)."""
    return services.do_run_review(review_id, nudge)


@shared_task(name="reviews.tasks.sweep_reviews", ignore_result=True)
def sweep_reviews() -> int:
    """Beat: send the task again for reviews whose message was lost."""
    return services.do_sweep_reviews()
