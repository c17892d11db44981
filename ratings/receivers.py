"""What the ratings app does when a game ends (contract 1: enqueue, nothing more)."""

from django.core.cache import cache

from ratings import selectors, services


def on_game_finished(sender=None, *, game_id: int, variant: str, rated: bool, **kwargs) -> None:
    """A finished rated game: nudge its variant's ratings worker (and note its table, whose
    result then shows the rating changes). Never raises into the play path."""
    if not rated or variant not in services.VARIANTS:
        return
    if kwargs.get("table_id"):
        cache.set(selectors.table_key(game_id), kwargs["table_id"], selectors.CHANCES_CACHE_SECONDS)
    services.enqueue_rate_game(game_id, variant)


def connect() -> None:
    """Connect to games.signals (from RatingsConfig.ready)."""
    from games.signals import game_finished

    game_finished.connect(on_game_finished, dispatch_uid="ratings.on_game_finished")
