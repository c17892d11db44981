"""Celery tasks: thin and idempotent; sent by name on the game's variant queue."""

from celery import shared_task

from reviews import services


@shared_task(name="reviews.tasks.run_review", acks_late=True)
def run_review(review_id: int) -> int:
    """Judge the reviewed seat's decisions (a done review is left as it is)."""
    return services.do_run_review(review_id)


@shared_task(name="reviews.tasks.sweep_reviews", ignore_result=True)
def sweep_reviews() -> int:
    """Beat: send the task again for reviews whose message was lost."""
    return services.do_sweep_reviews()
