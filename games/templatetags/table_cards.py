"""Cards and seat panels of the live table, rendered once and reused.

Every update of a table is rendered for each seat and spectator separately;
most of what they see is the same (the cards on the table, the panels of the
seats). These tags render such a piece once per distinct look and keep it in
a small per-process LRU cache, which makes a seat's fragment cheap.
"""

import threading
from functools import lru_cache

from django import template
from django.conf import settings
from django.template.loader import get_template
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import get_language, pgettext

register = template.Library()

CARD_TEMPLATE = "games/table/partials/card.html"
SEAT_TEMPLATE = "games/table/partials/seat.html"


@lru_cache(maxsize=2048)
def _card(code, rank, symbol, is_red, is_trump, is_target, extra):
    c = {"code": code, "rank": rank, "symbol": symbol, "is_red": is_red, "is_trump": is_trump, "is_target": is_target}
    return mark_safe(get_template(CARD_TEMPLATE).render({"c": c, "extra": extra}))


@register.simple_tag
def table_card(c, extra=""):
    """A face-up card (`games.display.card`), with extra CSS classes."""
    return _card(c["code"], c["rank"], c["symbol"], c["is_red"], c["is_trump"], bool(c.get("is_target")), extra)


HAND_TEMPLATE = "games/table/partials/hand_card.html"


@lru_cache(maxsize=2048)
def _hand_card(code, rank, symbol, is_red, is_trump, playable, action, targets):
    c = {
        "code": code,
        "rank": rank,
        "symbol": symbol,
        "is_red": is_red,
        "is_trump": is_trump,
        "playable": playable,
        "action": action,
        "targets": targets,
    }
    return mark_safe(get_template(HAND_TEMPLATE).render({"c": c}))


@register.simple_tag
def hand_card(c):
    """A card of the viewer's hand: a button carrying what a click on it plays."""
    return _hand_card(
        c["code"], c["rank"], c["symbol"], c["is_red"], c["is_trump"], c["playable"], c["action"], tuple(c["targets"])
    )


PANEL_KEYS = (
    "seat",
    "name",
    "is_bot",
    "bot_label",
    "autopilot",
    "count",
    "role",
    "role_label",
    "passed",
    "place",
    "to_move",
    "is_partner",
    "is_me",
    "rating",  # optional: set by ratings' `with_ratings` filter at rated tables
    "rating_note",
)


@lru_cache(maxsize=1024)
def _seat(language, key, known):
    p = dict(zip(PANEL_KEYS, key))
    p["backs"] = range(min(p["count"], 8))
    p["known"] = [dict(zip(("code", "rank", "symbol", "is_red"), k)) for k in known]
    return render_seat(p)


def render_template_seat(p) -> str:
    """A seat panel through seat.html (the reference markup `render_seat` reproduces)."""
    return mark_safe(get_template(SEAT_TEMPLATE).render({"p": p}))


def _t(text):
    return table_text(get_language(), text)


@lru_cache(maxsize=512)
def table_text(language: str, text: str) -> str:
    """A fixed text of the table, translated (context "table") and escaped: the
    catalogues do not change while the process runs, so once per language."""
    return conditional_escape(pgettext("table", text))


def number(value) -> str:
    """A number as `{{ value }}` prints it (`localize`). Without thousand separators
    (the default) an int prints as itself: the formats machinery is skipped."""
    if type(value) is int and not settings.USE_THOUSAND_SEPARATOR:
        return str(value)
    return localize(value)


def render_seat(p) -> str:
    """seat.html, byte for byte, without the template engine.

    A seat's panel changes with most moves (its card count, whose move it is),
    so the panel cache misses often; this renders a miss ~10 times faster than
    the template. tests/table/test_fast_rendering.py checks both agree.
    """
    e = conditional_escape
    classes = (
        (f" role-{e(p['role'])}" if p["role"] else "")
        + (" to-move" if p["to_move"] else "")
        + (" partner" if p["is_partner"] else "")
        + (" out" if p["place"] else "")
    )
    out = [
        f'<div class="t-seat{classes}" data-seat="{e(number(p["seat"]))}">\n'
        f'  <div class="t-seat-head">\n'
        f'    <span class="t-seat-name">{e(p["name"])}</span>'
    ]
    if p.get("rating"):
        note = f' title="{e(p["rating_note"])}"' if p.get("rating_note") else ""
        out.append(f'<span class="rating-badge"{note}>{e(p["rating"])}</span>')
    out.append("\n    ")
    if p["is_bot"]:
        out.append(f'<span class="t-badge bot" title="{e(p["bot_label"])}">{_t("bot")}</span>')
    out.append("\n    ")
    if p["autopilot"]:
        out.append(f'<span class="t-badge autopilot">{_t("autopilot")}</span>')
    out.append("\n    ")
    if p["is_partner"]:
        out.append(f'<span class="t-badge partner">{_t("partner")}</span>')
    out.append('\n  </div>\n  <div class="t-seat-info">\n    ')
    if p["role_label"]:
        out.append(f'<span class="t-role">{e(p["role_label"])}</span>')
    out.append("\n    ")
    if p["passed"]:
        out.append(f'<span class="t-badge passed">{_t("done")}</span>')
    out.append("\n    ")
    if p["place"]:
        place = pgettext("table", "place %(place)s") % {"place": e(number(p["place"]))}
        out.append(f'<span class="t-badge place">{place}</span>')
    out.append("\n  </div>\n  ")
    if not p["is_me"]:
        cards = pgettext("table", "cards: %(count)s") % {"count": e(number(p["count"]))}
        backs = '<span class="t-card back"></span>' * len(p["backs"])
        out.append(
            f'\n  <div class="t-backs" aria-label="{cards}">\n    {backs}\n'
            f'    <span class="t-count">{e(number(p["count"]))}</span>\n  </div>\n  '
        )
    out.append("\n  ")
    if p["known"] and not p["is_me"]:
        minis = "".join(
            f'<span class="t-mini {"red" if c["is_red"] else "black"}" data-card="{e(c["code"])}">'
            f"{e(c['rank'])}{e(c['symbol'])}</span>\n"
            for c in p["known"]
        )  # (mini.html ends with a newline)
        out.append(
            f'\n  <div class="t-known" title="{_t("Cards everyone has seen in this hand")}">\n    {minis}\n  </div>\n  '
        )
    out.append("\n</div>\n")
    return mark_safe("".join(out))


@register.simple_tag
def seat_panel(p):
    """A seat around the felt (`presenters.context._seat_panel`)."""
    key = tuple(p.get(k) for k in PANEL_KEYS)
    known = tuple((c["code"], c["rank"], c["symbol"], c["is_red"]) for c in p["known"])
    return _seat(get_language(), key, known)


# Whole lists in one tag: the same HTML as the `{% for %}` loops they replace in
# state.html / log.html (whitespace included), without the template engine's
# cost per iteration (these loops run for every seat on every move).


@register.simple_tag
def seat_panels(panels):
    """`{% for p in panels %}{% seat_panel p %}{% endfor %}`"""
    return mark_safe("".join(seat_panel(p) for p in panels))


@register.simple_tag
def hand_cards(hand):
    """The body of state.html's `{% for c in hand %}` loop for a non-empty hand."""
    return mark_safe("".join(f"\n          {hand_card(c)}\n          " for c in hand))


@register.simple_tag
def table_pairs(pairs):
    """The body of state.html's `{% for pair in pairs %}` loop for a non-empty table."""
    out = []
    for pair in pairs:
        defence = pair["defence"]
        out.append(
            f'\n          <div class="t-pair{" covered" if defence else ""}">'
            f"\n            {table_card(pair['attack'], 't-attack')}"
            f"\n            {table_card(defence, 't-defence') if defence else ''}"
            f"\n          </div>\n          "
        )
    return mark_safe("".join(out))


@register.simple_tag
def log_items(lines):
    """`{% for line in lines reversed %}<li>{{ line }}</li>{% endfor %}`"""
    # (the lines are safe already, format_html's: conditional_escape would return them as they are)
    return mark_safe(
        "".join(
            f"<li>{line if isinstance(line, SafeData) else conditional_escape(line)}</li>" for line in reversed(lines)
        )
    )


# ---------------------------------------------------------------- memo


def _frozen(value):
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    return value


MEMO_ENABLED = True  # tests switch it off to compare with plain rendering


class MemoNode(template.Node):
    """`{% memo a b.c ... %}...{% endmemo %}`: the block's HTML, kept per process.

    The block is rendered once for each distinct value of its keys (and the
    active language) and reused: ONLY for blocks whose output depends on
    nothing but those keys (a table's header, stock, discard pile, ...), which
    are the same for every seat and most moves.
    """

    MAX_ENTRIES = 2048

    def __init__(self, nodelist, keys):
        self.nodelist = nodelist
        self.keys = keys
        self.cache: dict = {}
        self.lock = threading.Lock()

    def render(self, context):
        if not MEMO_ENABLED:
            return self.nodelist.render(context)
        key = (get_language(), *(_frozen(k.resolve(context)) for k in self.keys))
        try:
            html = self.cache.get(key)
        except TypeError:  # an unhashable key: no memo
            return self.nodelist.render(context)
        if html is None:
            html = self.nodelist.render(context)
            with self.lock:
                self.cache[key] = html
                while len(self.cache) > self.MAX_ENTRIES:
                    del self.cache[next(iter(self.cache))]
        return html


@register.tag
def memo(parser, token):
    keys = [parser.compile_filter(bit) for bit in token.split_contents()[1:]]
    nodelist = parser.parse(("endmemo",))
    parser.delete_first_token()
    return MemoNode(nodelist, keys)
