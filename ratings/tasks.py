"""Celery tasks: thin, idempotent, each calls one service.

`rate_game` and `sweep_unrated` run on the variant's own queue (`ratings-<variant>`, one worker with
concurrency 1 per queue), sent with an explicit `queue=` by
`ratings.services.enqueue_*` and by the beat schedule rows.
"""

from celery import shared_task

from ratings import services


@shared_task(name="ratings.tasks.rate_game", acks_late=True)
def rate_game(game_id: int) -> int:
    """Bring the game's variant up to date up to this game (a repeat changes nothing)."""
    return services.rate_game(game_id)


@shared_task(name="ratings.tasks.recompute", acks_late=True)
def recompute(variant: str) -> int:
    """Rebuild one variant's ratings from scratch, in finishing order."""
    return services.recompute(variant)


@shared_task(name="ratings.tasks.sweep_unrated", acks_late=True)
def sweep_unrated(variant: str) -> int:
    """Beat: rate the variant's finished rated games that have no rating yet (a lost message)."""
    return services.sweep_unrated(variant)
