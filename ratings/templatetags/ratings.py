"""`{% load ratings %}`: ratings next to names, charts and chances, for any page.

Ratings next to names come from a short cache (selectors.cached_ratings_for,
selectors.CACHE_SECONDS), so a live table re-rendered after every move does not
query them each time. `user` may be a User, an id or a snapshot seat dict;
`game` a Game, an id or a snapshot game dict.

- `{% rating_of user variant %}`: "1523", or "1337?" while provisional;
- `{% rating_badge user variant [shown] %}`: the same in a <span class="rating-badge">
  (from `shown`, a dict of `ratings_for`, when given);
- `{% ratings_for user_ids variant as shown %}` then `{{ shown|rating_for:user_id }}`:
  many names, one query (lobby lists, table seats);
- `{% rating_chart user variant %}`: the SVG history chart (partials/chart.html);
- `{% ratings_profile user %}`: ratings per variant and their charts (for the profile);
- `{% game_chances game as rows %}` / `{% chances_list game %}`: each side's
  chance of being the durak in a rated game (empty otherwise), kept per game;
- `{% table_ratings table seats panels as shown %}` then `{% seat_panels panels|with_ratings:shown %}`:
  a live table's badges, one cache read per render.

Every read here also works while a consumer renders on the event loop
(`selectors.read_anywhere`), but a cache miss there makes the loop wait for
the query: a consumer awaits `selectors.acached_ratings_for` /
`selectors.acached_game_chance_rows` first, and the tags find the cache filled.
"""

from django import template
from django.utils.translation import gettext as _

from ratings import selectors

register = template.Library()


def _user_id(user):
    """A user, a user id, or a snapshot's seat dict (`user_id`)."""
    if user is None or user == "":
        return None
    if isinstance(user, dict):
        return user.get("user_id")
    return getattr(user, "pk", user)


def _game_id(game):
    """A game, a game id, or a snapshot's game dict (`id`)."""
    if isinstance(game, dict):
        return game.get("id")
    return getattr(game, "pk", game)


@register.simple_tag
def rating_of(user, variant):
    user_id = _user_id(user)
    return selectors.cached_ratings_for([user_id], variant).get(user_id, selectors.NEWCOMER)


@register.inclusion_tag("ratings/partials/badge.html")
def rating_badge(user, variant, known=None):
    """`known`: the {user_id: shown} of `ratings_for` / `table_ratings`, when a list of names looked them up at once."""
    shown = rating_for(known, user) if known else rating_of(user, variant)
    return {"shown": shown, "provisional": selectors.is_provisional_text(shown)}


@register.simple_tag
def ratings_for(user_ids, variant):
    return selectors.cached_ratings_for([_user_id(u) for u in user_ids], variant)


@register.filter
def rating_for(shown, user):
    if not shown:
        return selectors.NEWCOMER
    return shown.get(_user_id(user), selectors.NEWCOMER)


@register.inclusion_tag("ratings/partials/chart.html")
def rating_chart(user, variant):
    return {"chart": selectors.chart(_user_id(user), variant), "person": user, "variant": variant}


@register.simple_tag
def table_ratings(table, *seat_lists):
    """{user_id: shown} for everyone in `seat_lists` (dicts with `user_id`) at a rated table
    (a Table or a snapshot's table dict); {} otherwise.

    One cache read (and one query for what it misses) for the whole fragment, so a
    live table re-rendered after every move does not look ratings up seat by seat."""
    read = table.get if isinstance(table, dict) else lambda name: getattr(table, name, None)
    if not table or not read("rated"):
        return {}
    ids = [_user_id(seat) for seats in seat_lists if seats for seat in seats]
    return selectors.cached_ratings_for(ids, read("variant"))


def _rated_panel(panel, shown):
    user_id = panel.get("user_id")
    if user_id is None or user_id not in shown:
        return panel
    text = shown[user_id]
    note = _("Provisional: the rating is still uncertain") if selectors.is_provisional_text(text) else _("Rating")
    return {**panel, "rating": text, "rating_note": str(note)}


@register.filter
def with_ratings(panels, shown):
    """Seat panels (a list, or one panel) with `rating` / `rating_note` set from `table_ratings`."""
    if not shown or not panels:
        return panels
    if isinstance(panels, dict):
        return _rated_panel(panels, shown)
    return [_rated_panel(panel, shown) for panel in panels]


@register.simple_tag
def game_chances(game):
    return selectors.cached_game_chance_rows(_game_id(game))


@register.inclusion_tag("ratings/partials/chances.html")
def chances_list(game):
    return {"chances": selectors.cached_game_chance_rows(_game_id(game))}


@register.inclusion_tag("ratings/partials/profile.html")
def ratings_profile(user):
    """The player's rating per variant and a chart of each variant he played rated."""
    ratings = selectors.player_ratings(_user_id(user), with_rank=True)
    charts = [
        {"variant": r["variant"], "label": r["label"], "chart": selectors.chart(_user_id(user), r["variant"])}
        for r in ratings
        if r["games"]
    ]
    return {"person": user, "ratings": ratings, "charts": charts}
