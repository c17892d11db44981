"""What the ratings app does when a game ends (contract 1: enqueue, nothing more),
and before a live table renders (fetch the ratings it shows, off the event loop)."""

from django.core.cache import cache

from games.choices import GameStatus
from ratings import selectors, services


def on_game_finished(sender=None, *, game_id: int, variant: str, rated: bool, **kwargs) -> None:
    """A finished rated game: nudge its variant's ratings worker (and note its table, whose
    result then shows the rating changes). Never raises into the play path."""
    if not rated or variant not in services.VARIANTS:
        return
    if kwargs.get("table_id"):
        cache.set(selectors.table_key(game_id), kwargs["table_id"], selectors.CHANCES_CACHE_SECONDS)
    services.enqueue_rate_game(game_id, variant)


async def before_table_render(sender=None, *, snapshot: dict, **kwargs) -> None:
    """A live table is about to render on the event loop: have the ratings next to the
    names (and, before a rated game's first move, the players' chances) in the cache,
    the queries awaited here, so the template tags only read the cache
    (`ratings.templatetags.ratings`: `table_ratings`, `chances_list`)."""
    table = snapshot.get("table") or {}
    if not table.get("rated"):
        return
    game = snapshot.get("game") or {}
    seats = [*(snapshot.get("seats") or ()), *(game.get("seats") or ())]
    await selectors.acached_ratings_for([seat.get("user_id") for seat in seats], table.get("variant"))
    if game.get("id") and game.get("move_count") == 0 and game.get("status") != GameStatus.FINISHED:
        await selectors.acached_game_chance_rows(game["id"])
    elif game.get("id") and game.get("status") == GameStatus.FINISHED:
        await selectors.acached_game_changes(game["id"])


def connect() -> None:
    """Connect to games.signals (from RatingsConfig.ready)."""
    from games.signals import game_finished, table_will_render

    game_finished.connect(on_game_finished, dispatch_uid="ratings.on_game_finished")
    table_will_render.connect(before_table_render, dispatch_uid="ratings.before_table_render")
