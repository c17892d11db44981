"""What the ratings app shows at a live table (registered with `games.extensions`
in RatingsConfig.ready): the ratings next to the names at a rated table and,
before its first move, each player's chance of not being the durak.

Both read only the cache a `games.signals.table_will_render` receiver filled
(`receivers.before_table_render`): the table renders on the event loop.
"""

from django.template.loader import render_to_string
from django.utils.translation import gettext as _

from ratings import selectors


def seat_marks(table: dict, user_ids: list) -> dict:
    if not table.get("rated"):
        return {}
    shown = selectors.cached_ratings_for(user_ids, table.get("variant"))
    return {
        user_id: {
            "text": text,
            "note": _("Provisional: too few games yet") if text == selectors.UNKNOWN else _("Rating"),
            "kind": "rating-badge",
        }
        for user_id, text in shown.items()
    }


def game_notes(table: dict, game: dict) -> list[str]:
    if not table.get("rated") or game.get("over") or game.get("move_count") != 0:
        return []
    rows = selectors.cached_game_chance_rows(game["id"])
    return [render_to_string("ratings/partials/chances.html", {"chances": rows})] if rows else []
