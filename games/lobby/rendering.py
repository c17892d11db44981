"""The lobby's tables fragment: the same template serves the page and the socket."""

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape

from games import extensions, selectors
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
    # what other apps show next to the names (games.extensions), e.g. ratings at rated tables
    marks = extensions.seat_marks({"rated": table.rated, "variant": table.variant}, [s["user_id"] for s in seats])
    for s in seats:
        s["mark"] = marks.get(s["user_id"])
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


def lobby_context(user, tables=None) -> dict:
    """What the tables fragment shows `user` (the page and the live updates alike);
    `tables`: the lobby's tables already read (`selectors.lobby_tables()`)."""
    return {
        "rows": [_table_row(t, user) for t in (selectors.lobby_tables() if tables is None else tables)],
        "my_rows": [_table_row(t, user) for t in selectors.running_tables_of(user)],
        "user": user,
    }


def render_tables(user, csrf_token: str | None, oob: bool = False, tables=None) -> str:
    """The tables fragment; `oob` marks it for an htmx out-of-band swap (websocket)."""
    context = {**lobby_context(user, tables), "oob": oob, "csrf_token": csrf_token or ""}
    return render_to_string(TABLES_PARTIAL, context)


CSRF_SLOT = "lobby-csrf-token-slot"  # stands for each socket's own token in a shared render


def _profile_href(user) -> str:
    return f'href="{escape(reverse("games:profile", kwargs={"username": user.get_username()}))}"'


def live_frames(viewers: list[tuple[object, str | None]]) -> list[str]:
    """The live tables fragment for each (user, csrf token) of one language, after a
    lobby change: the lobby read once, and rendered once for all visitors, once for
    all signed-in people who sit at none of its tables and have no table going
    (they differ only in their profile link), and once for each other person.
    Each socket's own CSRF token goes into its copy."""
    tables = list(selectors.lobby_tables())
    members = {user.pk for user, _csrf in viewers if user is not None and user.is_authenticated}
    seated = {seat.user_id for table in tables for seat in table.seats.all() if seat.user_id in members}
    personal = seated | selectors.users_with_running_tables(members - seated)
    rendered: dict = {}
    frames = []
    for user, csrf_token in viewers:
        if user is None or not user.is_authenticated:
            key = "visitor"
        else:
            key = user.pk if user.pk in personal else "member"
        if key not in rendered:
            rendered[key] = (user, render_tables(user, CSRF_SLOT, oob=True, tables=tables))
        model, html = rendered[key]
        if key == "member" and model.pk != user.pk:
            html = html.replace(_profile_href(model), _profile_href(user))
        frames.append(html.replace(CSRF_SLOT, escape(csrf_token or "")))
    return frames
