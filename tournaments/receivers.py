"""Receivers of the games app's signals: they only enqueue work (contract 1)."""

import logging

log = logging.getLogger(__name__)


def on_game_finished(sender=None, *, game_id: int, table_id: int, variant: str, rated: bool = False, **kwargs):
    from .models import RoundTable
    from .tasks import record_game

    try:
        if RoundTable.objects.filter(table_id=table_id).exists():
            record_game.apply_async(args=[game_id], queue=variant)
    except Exception:  # never raise into the play path; the sweep records it later
        log.exception("could not enqueue the record of game %s", game_id)
