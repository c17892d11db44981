"""The lobby's tables fragment: the same template serves the page and the socket."""

from django.template.loader import render_to_string

from games import selectors
from games.display import bot_label, player_name, rules_summary, seat_player_name, timer_text, variant_name
from games.models import Table

TABLES_PARTIAL = "games/lobby/partials/tables.html"


def _table_row(table: Table, user) -> dict:
    user_id = user.pk if user is not None and user.is_authenticated else None
    seats = []
    for seat in table.seats.all():
        seats.append(
            {
                "number": seat.number,
                "user_id": seat.user_id,  # (ratings next to names at rated tables)
                "name": player_name(selectors.display_name(seat.user)) if seat.user_id else "",
                "bot": seat_player_name("", seat.bot_level, seat.number) if seat.bot_level and not seat.user_id else "",
                "bot_label": bot_label(seat.bot_level) if seat.bot_level and not seat.user_id else "",
                "is_me": user_id is not None and seat.user_id == user_id,
                "free": seat.is_empty,
            }
        )
    seated = any(s["is_me"] for s in seats)
    return {
        "table": table,
        "variant": variant_name(table.variant),
        "summary": rules_summary(table.rules),
        "timer": timer_text(table.turn_seconds),
        "bots": bot_label(table.bot_level) if table.bot_level else "",
        "seats": seats,
        "seated": seated,
        "can_join": user_id is not None
        and not seated
        and table.status == Table.Status.WAITING
        and any(s["free"] for s in seats),
    }


def lobby_context(user) -> dict:
    """What the tables fragment shows `user` (the page and the live updates alike)."""
    return {
        "rows": [_table_row(t, user) for t in selectors.lobby_tables()],
        "my_rows": [_table_row(t, user) for t in selectors.running_tables_of(user)],
        "user": user,
    }


def render_tables(user, csrf_token: str | None, oob: bool = False) -> str:
    """The tables fragment; `oob` marks it for an htmx out-of-band swap (websocket)."""
    context = {**lobby_context(user), "oob": oob, "csrf_token": csrf_token or ""}
    return render_to_string(TABLES_PARTIAL, context)
