"""Receivers of the games app's signals: the finished-game one only enqueues work (contract 1)."""

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


def on_table_page(sender=None, *, table_id: int, request=None, **kwargs) -> dict | None:
    """games.signals.table_page_will_render: the page of a table of an event says the
    event, the round and the table's number in the round (the number the seat notice
    gives) and links back to the event. A table of no event: nothing."""
    from django.template.loader import render_to_string
    from django.utils.translation import gettext

    from .models import RoundTable

    rt = RoundTable.objects.filter(table_id=table_id).select_related("round__tournament").first()
    if rt is None:
        return None
    event = rt.round.tournament
    context = {"event": event, "round_number": rt.round.number, "table_number": rt.number}
    title = gettext("%(event)s: round %(round)s, table %(number)s") % {
        "event": event.name,
        "round": rt.round.number,
        "number": rt.number,
    }
    return {"html": render_to_string("tournaments/partials/table_event.html", context, request=request), "title": title}
