"""Rendering the table fragments: the same templates serve the page and the socket.

Every fragment is a top-level element with a fixed id; over the socket it
carries `hx-swap-oob`, so htmx's ws extension swaps it into the page:

- `#table-state`   the felt: seats, table, stock, own hand, buttons, result, seating
- `#table-log`     the recent events, redacted for the viewer
- `#table-error`   the last refusal (empty after an accepted frame)
- `#chat-messages` new chat lines are appended to it (`hx-swap-oob="beforeend"`);
                   on (re)connect the whole recent chat replaces it

Render once per move: most of `#table-state` is the same for every seat (the
header, the deck, the pairs, the discard pile, the seed, the result). On a
move, `shared_state` renders state.html ONCE per language from the
spectator's context, with a marker in place of each part a viewer sees his own
way (`SEAT_REGIONS`: the section's own attributes, the seats around him, the
pairs he may cover, his status, hand and buttons, the resign and seating
forms); each seat's socket then renders only those regions
(state_seat.html, the very templates state.html includes on a page) and
fills them in (`seat_fragments`). What one process rendered for a group
message is kept, bounded, by (message key, language), so the other sockets of
the group reuse it. The shared text comes from the spectator's context only:
nothing a seat alone may know can be in it.
"""

import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache

from django.template import Context
from django.template.loader import get_template, render_to_string
from django.utils import translation
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from games.templatetags import table_cards

from . import presenters

STATE_TEMPLATE = "games/table/partials/state.html"
LOG_TEMPLATE = "games/table/partials/log.html"
ERROR_TEMPLATE = "games/table/partials/error.html"
CHAT_APPEND_TEMPLATE = "games/table/partials/chat_append.html"
CHAT_HISTORY_TEMPLATE = "games/table/partials/chat_history.html"
SEAT_TEMPLATE = "games/table/partials/state_seat.html"

# The parts of state.html each viewer sees his own way, in state.html's order
# ("pairs": only a seat that may cover an attack card sees them its own way).
SEAT_REGIONS = ("open", "watching", "top", "left", "right", "pairs", "own", "resign", "seating")
# A marker no rendered text can contain: a fresh secret per process (a player's
# name cannot carry it into the shared text).
_MARK = secrets.token_hex(12)
_SLOTS = {name: mark_safe(f"\x00{_MARK}:{name}\x00") for name in SEAT_REGIONS}
_SEP = mark_safe(f"\x00{_MARK}\x00")
_SLOT_RE = re.compile(f"\x00{_MARK}:(\\w+)\x00")
SHARED_CACHE_SIZE = 256  # group messages whose shared part one process keeps


def live_fragments(context: dict, language: str, csrf_token: str = "") -> str:
    """State and log of one viewer, as out-of-band swaps."""
    context = {**context, "oob": True, "csrf_token": csrf_token}
    with translation.override(language):
        return render_to_string(STATE_TEMPLATE, context) + render_to_string(LOG_TEMPLATE, context)


@lru_cache(maxsize=256)
def error_fragment(message: str, language: str) -> str:
    """The refusal line (empty: cleared after every accepted frame); the same text, the same HTML."""
    with translation.override(language):
        return render_to_string(ERROR_TEMPLATE, {"oob": True, "error": message})


def chat_fragment(message: dict, language: str) -> str:
    with translation.override(language):
        return render_to_string(CHAT_APPEND_TEMPLATE, {"message": message})


def chat_history_fragment(messages: list[dict], language: str) -> str:
    """The table's recent chat, replacing the list: what a (re)connecting socket missed."""
    with translation.override(language):
        return render_to_string(CHAT_HISTORY_TEMPLATE, {"chat_messages": messages})


# ---------------------------------------------------------------- render once per move


@dataclass(frozen=True)
class SharedState:
    """state.html for everyone at a table after one change: the text between the regions."""

    texts: tuple[str, ...]  # len(regions) + 1 pieces of shared HTML
    regions: tuple[str, ...]  # the region between texts[i] and texts[i + 1]
    pairs: str  # the pairs region as every viewer who covers nothing sees it
    shown: dict  # what state.html's `{% table_ratings %}` looked up (ratings next to names)
    context: dict  # the spectator's context it was rendered from (`table_context(..., spectator=)`)
    # Seat panels as the spectator sees them, by seat, filled as sockets need them: every
    # viewer but the seat itself and its partner sees a seat's panel exactly so.
    panels: dict = field(default_factory=dict)


_shared: OrderedDict = OrderedDict()
_shared_lock = threading.Lock()


def shared_state(spectator_context: dict, language: str, key=None) -> SharedState:
    """The shared part of state.html, rendered from the SPECTATOR's context
    (`presenters.table_context(snapshot, None)`); kept per process by
    (key, language) when a key (one group message's) is given."""
    if key is not None:
        with _shared_lock:
            found = _shared.get((key, language))
            if found is not None:
                _shared.move_to_end((key, language))
                return found
    with translation.override(language):
        context = Context({**spectator_context, "oob": True, "csrf_token": "", "live_slots": _SLOTS}, autoescape=True)
        html = get_template(STATE_TEMPLATE).template.render(context)
        shown = context.get("shown") or {}
        if QUICK_REGIONS:
            pairs = _quick_pairs(spectator_context)
        else:
            pairs = _render_regions(spectator_context, ("pairs",), shown)[0]
    parts = _SLOT_RE.split(html)
    shared = SharedState(
        texts=tuple(parts[0::2]), regions=tuple(parts[1::2]), pairs=pairs, shown=shown, context=spectator_context
    )
    if key is not None:
        with _shared_lock:
            _shared[(key, language)] = shared
            while len(_shared) > SHARED_CACHE_SIZE:
                _shared.popitem(last=False)
    return shared


def shared_parts_kept() -> int:
    """How many shared parts this process keeps now (at most SHARED_CACHE_SIZE)."""
    with _shared_lock:
        return len(_shared)


def shared_state_of(snapshot: dict, language: str, key) -> SharedState:
    """`shared_state` of a snapshot: the spectator's context is built only by the
    first socket of the process that needs it."""
    with _shared_lock:
        found = _shared.get((key, language))
    if found is not None:
        return found
    with translation.override(language):
        spectator = presenters.table_context(snapshot, None, ())
    return shared_state(spectator, language, key)


def _render_regions(context: dict, names, shown: dict, csrf_token: str = "") -> list[str]:
    template = get_template(SEAT_TEMPLATE).template
    ctx = Context({**context, "oob": True, "csrf_token": csrf_token, "shown": shown}, autoescape=True)
    out = []
    for name in names:
        with ctx.push(region=name):
            out.append(template.render(ctx))
    return out


def seat_fragments(shared: SharedState, context: dict, language: str, csrf_token: str = "") -> str:
    """What `live_fragments(context, ...)` renders, byte for byte: the shared text
    with this viewer's own regions filled in, then his log.

    The regions every seat renders on every move are written here in Python
    (`_quick_regions`: state_seat.html's markup, whitespace included, as
    `table_cards.render_seat` does for seat.html); the rarer ones (a defender's
    pairs, buttons, autopilot, the seating between games, ratings) go through
    state_seat.html. tests/table/test_render_once.py compares both ways."""
    covers = any(pair["attack"].get("is_target") for pair in context.get("pairs") or ())
    with translation.override(language):
        rendered = _quick_regions(context, shared, csrf_token) if QUICK_REGIONS else {}
        if not covers:
            rendered["pairs"] = shared.pairs
        missing = [name for name in shared.regions if name not in rendered]
        if missing:
            rendered.update(zip(missing, _render_regions(context, missing, shared.shown, csrf_token)))
        log = _quick_log(context) if QUICK_REGIONS else render_to_string(LOG_TEMPLATE, {**context, "oob": True})
    out = [shared.texts[0]]
    for name, text in zip(shared.regions, shared.texts[1:]):
        out.append(rendered[name])
        out.append(text)
    out.append(log)
    return "".join(out)


QUICK_REGIONS = True  # tests switch it off to compare with state_seat.html


def _t(text: str) -> str:
    return table_cards.table_text(get_language(), text)


def _n(value) -> str:
    """A number as the template prints it."""
    text = table_cards.number(value)
    return text if type(value) is int else conditional_escape(text)  # (an int's digits need no escaping)


def _quick_regions(context: dict, shared: SharedState, csrf_token: str) -> dict:
    """The regions whose common form is cheap to write out; the others are left out."""
    game = context.get("game")
    table = context["table"]
    seat = context.get("viewer_seat")
    out = {
        "open": (
            f'<section id="table-state" class="t-state{" my-turn" if context.get("my_turn") else ""}'
            f'{" over" if game and game.get("over") else ""}" data-table="{_n(table["id"])}"'
            f' data-seat="{"" if seat is None else _n(seat)}"'
            f' data-game="{"" if not game or game["id"] is None else _n(game["id"])}"'
            f' data-moves="{"" if not game or game["move_count"] is None else _n(game["move_count"])}"'
            ' hx-swap-oob="true">'
        ),
        "watching": (
            f'<span class="t-badge watching">{_t("watching")}</span>' if context.get("is_spectator") and game else ""
        ),
        "pairs": _quick_pairs(context),
    }
    seating, urls = context.get("seating") or {}, context.get("urls") or {}
    if not (seating.get("can_resign") and urls.get("resign")):
        out["resign"] = ""
    elif csrf_token != "NOTPROVIDED":
        out["resign"] = _quick_resign(get_language(), urls["resign"], csrf_token, str(context["resign_counts"]))
    if not seating.get("show") and not seating.get("closed"):
        out["seating"] = ""
    if shared.shown:  # ratings next to names: state_seat.html adds them
        return out
    for slot in ("top", "left", "right"):
        out[slot] = "".join(_panel(shared, panel) for panel in context.get(f"opponents_{slot}") or ())
    if game and not context.get("on_autopilot") and not (context.get("can_finish_now") and urls.get("finish")):
        out["own"] = _quick_own(context)
    return out


def _panel(shared: SharedState, panel: dict) -> str:
    """`table_cards.seat_panel(panel)`: once per move and seat for every viewer who is not
    that seat or its partner (their panel is the spectator's: `presenters.context._viewers_panel`)."""
    if panel["is_me"] or panel["is_partner"]:
        return table_cards.seat_panel(panel)
    seat = panel["seat"]
    html = shared.panels.get(seat)
    if html is None:
        html = shared.panels[seat] = table_cards.seat_panel(panel)
    return html


def _quick_pairs(context: dict) -> str:
    """state_seat.html's "pairs" region."""
    pairs = context.get("pairs")
    if pairs:
        body = table_cards.table_pairs(pairs)
    else:
        game = context.get("game")
        note = "" if game and game.get("over") else f'<p class="t-empty-table">{_t("The table is empty.")}</p>'
        body = f"\n          {note}\n          "
    return f'<div class="t-pairs" data-limit="{_n(context.get("attack_limit"))}">\n          {body}\n        </div>'


def _quick_own(context: dict) -> str:
    """state_seat.html's "own" region without autopilot, finish form, buttons or ratings."""
    left = context.get("seconds_left")
    countdown = (
        f'<span class="t-countdown" data-deadline="{conditional_escape(context["deadline"])}" data-left="{_n(left)}"'
        f' title="{_t("Time left for this move")}">{_n(left)}</span>'
        if left is not None
        else ""
    )
    me, bottom = context.get("me"), context.get("bottom")
    if me:
        hand = context.get("hand")
        if hand:
            cards = table_cards.hand_cards(hand)
        else:
            note = "" if context["game"].get("over") else f'<p class="t-note">{_t("You have no cards.")}</p>'
            cards = f"\n          {note}\n          "
        own = (
            f"\n        {table_cards.seat_panel(me)}\n"
            f'        <div class="t-hand" role="group" aria-label="{_t("Your cards")}">\n'
            f"          {cards}\n        </div>\n        {_quick_buttons(context)}\n      "
        )
    elif bottom:
        own = f"\n        {table_cards.seat_panel(bottom)}\n      "
    else:
        own = ""
    return (
        '<div class="t-status" aria-live="polite">\n'
        f'      <span class="t-status-text">{conditional_escape(context.get("status_text", ""))}</span>\n'
        f"      {countdown}\n    </div>\n\n    \n    \n    \n\n"
        f'    <div class="t-bottom">\n      {own}\n    </div>'
    )


def _quick_buttons(context: dict) -> str:
    """The viewer's buttons (state_seat.html's `t-actions` block)."""
    buttons = context.get("buttons")
    if not buttons:
        return ""
    seat, table, game = _n(context["viewer_seat"]), _n(context["table"]["id"]), _n(context["game"]["id"])
    forms = []
    for b in buttons:
        c = b.get("card")
        mini = (
            f' <span class="t-mini {"red" if c["is_red"] else "black"}" data-card="{conditional_escape(c["code"])}">'
            f"{conditional_escape(c['rank'])}{conditional_escape(c['symbol'])}</span>\n"
            if c
            else ""
        )  # (mini.html ends with a newline)
        action, kind = conditional_escape(b["action"]), conditional_escape(b["kind"])
        forms.append(
            '\n          <form class="t-action-form" ws-send>\n'
            f'            <input type="hidden" name="action" value="{action}">\n'
            f'            <input type="hidden" name="seat" value="{seat}">\n'
            f'            <input type="hidden" name="table" value="{table}">\n'
            f'            <input type="hidden" name="game" value="{game}">\n'
            f'            <button type="submit" class="t-btn t-btn-{kind}" data-action="{action}">'
            f"{conditional_escape(b['label'])}{mini}</button>\n          </form>\n          "
        )
    return '\n        <div class="t-actions">\n          ' + "".join(forms) + "\n        </div>\n        "


@lru_cache(maxsize=256)
def _quick_resign(language: str, url: str, csrf_token: str, resign_counts: str) -> str:
    """state_seat.html's resign form (the same for a seat's every move)."""
    token = (
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{conditional_escape(csrf_token)}">'
        if csrf_token
        else ""
    )
    return (
        f'\n  <form method="post" action="{conditional_escape(url)}" class="t-resign"'
        f' data-confirm="{conditional_escape(resign_counts)}">\n'
        f'    {token}<button type="submit" class="t-btn t-btn-quiet">{_t("Resign")}</button>\n  </form>\n  '
    )


def _quick_log(context: dict) -> str:
    """log.html over the socket."""
    lines = context.get("log")
    items = table_cards.log_items(lines) if lines else f'<li class="t-empty">{_t("Nothing has happened yet.")}</li>'
    return (
        f'<section id="table-log" class="t-log" hx-swap-oob="true">\n  <h2>{_t("Moves")}</h2>\n'
        f"  <ol reversed>\n    {items}\n  </ol>\n</section>\n"
    )
