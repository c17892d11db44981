"""What the ratings app shows on other apps' pages through `games.extensions`
(registered in RatingsConfig.ready): the ratings next to the names at a rated
table and in the lobby's rows, before a rated game's first move each side's
chance of being the durak, the ratings section of a player's profile, and on a game's
record why a game of a rated table is not rated (ratings.counted).

Every rating is shown the same way (the number, with "?" while provisional) and
links to the page that explains it (`ratings:about`).

The table asks its providers once per render, off the event loop
(`games.table.rendering.extras_of`); they read through the short cache of
`selectors.cached_ratings_for` and the game's cached rows, so a table re-rendered
after every move does not query the ratings each time.
"""

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from ratings import counted, selectors


def mark(text: str) -> dict:
    """A rating as a seat mark (`games.extensions.seat_marks`)."""
    provisional = selectors.is_provisional_text(text)
    return {
        "text": text,
        "note": _("Provisional: the rating is still uncertain") if provisional else _("Rating"),
        "kind": "rating-badge provisional" if provisional else "rating-badge",
        "href": reverse("ratings:about"),
    }


def seat_marks(table: dict, user_ids: list) -> dict:
    if not table.get("rated"):
        return {}
    shown = selectors.cached_ratings_for(user_ids, table.get("variant"))
    return {user_id: mark(text) for user_id, text in shown.items()}


def game_notes(table: dict, game: dict) -> list[str]:
    """Before a rated game's first move each side's chance; once it is over and rated, each
    player's rating after it and its +/-."""
    if not table.get("rated"):
        return []
    if game.get("over"):
        changes = selectors.cached_game_changes(game.get("id"))
        return [render_to_string("ratings/partials/changes.html", {"changes": changes})] if changes else []
    if game.get("move_count") != 0:
        return []
    rows = selectors.cached_game_chance_rows(game["id"])
    return [render_to_string("ratings/partials/chances.html", {"chances": rows})] if rows else []


def record_panels(request, game) -> list[str]:
    """A game of a rated table that the ratings do not count says why (ratings.counted)."""
    if not game.is_over or not game.table.rated or game.rated:
        return []
    reason = counted.unrated_reason((game.result or {}).get("ended"), game.move_count)
    return [render_to_string("ratings/partials/unrated.html", {"reason": reason})] if reason else []


def profile_sections(request, player) -> list[str]:
    """The player's rating per variant and its chart (not for guests: they play unrated)."""
    profile = getattr(player, "profile", None)
    if profile is not None and getattr(profile, "is_guest", False):
        return []
    ratings = selectors.player_ratings(player.pk, with_rank=True)
    charts = [
        {"variant": r["variant"], "label": r["label"], "chart": selectors.chart(player.pk, r["variant"])}
        for r in ratings
        if r["games"]
    ]
    context = {"person": player, "ratings": ratings, "charts": charts}
    return [render_to_string("ratings/partials/profile.html", context, request=request)]
