"""Cards and seat panels of the live table, rendered once and reused.

Every update of a table is rendered for each seat and spectator separately;
most of what they see is the same (the cards on the table, the panels of the
seats). These tags render such a piece once per distinct look and keep it in
a small per-process LRU cache, which makes a seat's fragment cheap.
"""

from functools import lru_cache

from django import template
from django.template.loader import get_template
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

register = template.Library()

CARD_TEMPLATE = "games/table/partials/card.html"
SEAT_TEMPLATE = "games/table/partials/seat.html"


@lru_cache(maxsize=2048)
def _card(code, rank, symbol, is_red, is_trump, is_target, extra):
    c = {"code": code, "rank": rank, "symbol": symbol, "is_red": is_red, "is_trump": is_trump,
         "is_target": is_target}
    return mark_safe(get_template(CARD_TEMPLATE).render({"c": c, "extra": extra}))


@register.simple_tag
def table_card(c, extra=""):
    """A face-up card (`presenters.card`), with extra CSS classes."""
    return _card(c["code"], c["rank"], c["symbol"], c["is_red"], c["is_trump"], bool(c.get("is_target")), extra)


HAND_TEMPLATE = "games/table/partials/hand_card.html"


@lru_cache(maxsize=2048)
def _hand_card(code, rank, symbol, is_red, is_trump, playable, action, targets):
    c = {"code": code, "rank": rank, "symbol": symbol, "is_red": is_red, "is_trump": is_trump,
         "playable": playable, "action": action, "targets": targets}
    return mark_safe(get_template(HAND_TEMPLATE).render({"c": c}))


@register.simple_tag
def hand_card(c):
    """A card of the viewer's hand: a button carrying what a click on it plays."""
    return _hand_card(c["code"], c["rank"], c["symbol"], c["is_red"], c["is_trump"], c["playable"], c["action"],
                      tuple(c["targets"]))


PANEL_KEYS = ("seat", "name", "is_bot", "bot_label", "autopilot", "count", "role", "role_label", "passed",
              "place", "to_move", "is_partner", "is_me")


@lru_cache(maxsize=1024)
def _seat(language, key, known):
    p = dict(zip(PANEL_KEYS, key))
    p["backs"] = range(min(p["count"], 8))
    p["known"] = [dict(zip(("code", "rank", "symbol", "is_red"), k)) for k in known]
    return mark_safe(get_template(SEAT_TEMPLATE).render({"p": p}))


@register.simple_tag
def seat_panel(p):
    """A seat around the felt (`presenters._seat_panel`)."""
    key = tuple(p[k] for k in PANEL_KEYS)
    known = tuple((c["code"], c["rank"], c["symbol"], c["is_red"]) for c in p["known"])
    return _seat(get_language(), key, known)
