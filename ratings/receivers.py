"""What the ratings app does when a game ends (contract 1): enqueue, nothing more."""

import logging

from ratings import services

log = logging.getLogger(__name__)


def on_game_finished(sender=None, *, game_id: int, variant: str, rated: bool, **kwargs) -> None:
    """A finished rated game: nudge its variant's ratings worker. Never raises into the play path."""
    if not rated or variant not in services.VARIANTS:
        return
    services.enqueue_rate_game(game_id, variant)


def connect() -> bool:
    """Connect to games.signals.game_finished; False while that module does not exist yet."""
    try:
        from games.signals import game_finished
    except ImportError:
        log.warning("games.signals.game_finished is missing: rated games wait for the periodic recomputation")
        return False
    game_finished.connect(on_game_finished, dispatch_uid="ratings.on_game_finished")
    return True
