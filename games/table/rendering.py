"""Rendering the table fragments: the same templates serve the page and the socket.

state.html is made of named partials, one per region, each a top-level element
with a fixed id (`REGIONS`); log.html and error.html likewise. The page and a
socket's first frame (and every re-sync) render the whole `#table-state` and
`#table-log` (`live_fragments`). After a change a socket sends only what
changed for its viewer (`LiveView.update`): each region whose HTML differs from
what it sent last, as `hx-swap-oob`, `#table-meta` always (the move count and
turn the page's script copies onto `#table-state`), and only the new log lines
(put on top of the list). The regions every viewer sees alike (`SHARED`) are
rendered once per group message and language from the spectator's context
(`shared_regions_of`), so they can hold nothing a seat alone may know.

Other apps' additions (ratings next to names, chances) come through
`games.extensions`: `decorated` adds them to the context.

- `#table-error`   the last refusal (empty after an accepted frame)
- `#chat-messages` new chat lines are appended to it (`hx-swap-oob="beforeend"`);
                   on (re)connect the whole recent chat replaces it
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from django.template import Context
from django.template.loader import get_template, render_to_string
from django.utils import translation

from games import extensions

from . import presenters

STATE_TEMPLATE = "games/table/partials/state.html"
LOG_TEMPLATE = "games/table/partials/log.html"
ERROR_TEMPLATE = "games/table/partials/error.html"
CHAT_APPEND_TEMPLATE = "games/table/partials/chat_append.html"
CHAT_HISTORY_TEMPLATE = "games/table/partials/chat_history.html"

# state.html's partials that are swapped by id, in the page's order; all but
# "head" and "seating" exist only while a game is on the table.
REGIONS = (
    "meta",
    "head",
    "seats_top",
    "seats_left",
    "seats_right",
    "deck",
    "pairs",
    "discard",
    "status",
    "bottom",
    "fair",
    "result",
    "resign",
    "seating",
)
NO_GAME_REGIONS = ("meta", "head", "seating")
# What every viewer sees alike ("pairs" too, but for a seat that may cover a card).
SHARED = ("deck", "pairs", "discard", "fair", "result")
SHARED_CACHE_SIZE = 256  # group messages whose shared regions one process keeps


def decorated(context: dict) -> dict:
    """The context with what other apps show at the table (`games.extensions`)."""
    table = context["table"]
    seating = context.get("seating") or {}
    panels = context.get("panels") or ()
    ids = [p.get("user_id") for p in panels] + [s.get("user_id") for s in seating.get("seats") or ()]
    marks = extensions.seat_marks(table, ids)
    extra = {"game_notes": extensions.game_notes(table, context.get("game"))}
    if marks:

        def marked(p):
            return {**p, "mark": marks[p["user_id"]]} if p and p.get("user_id") in marks else p

        for name in ("panels", "opponents_top", "opponents_left", "opponents_right"):
            extra[name] = [marked(p) for p in context.get(name) or ()]
        extra["me"], extra["bottom"] = marked(context.get("me")), marked(context.get("bottom"))
        extra["seating"] = {**seating, "seats": [marked(s) for s in seating.get("seats") or ()]}
    return {**context, **extra}


def live_fragments(context: dict, language: str, csrf_token: str = "") -> str:
    """State and log of one viewer, whole, as out-of-band swaps."""
    return _whole(decorated(context), language, csrf_token)


def _whole(context: dict, language: str, csrf_token: str) -> str:
    context = {**context, "oob": True, "csrf_token": csrf_token}
    with translation.override(language):
        return render_to_string(STATE_TEMPLATE, context) + render_to_string(LOG_TEMPLATE, context)


def region_names(context: dict) -> tuple[str, ...]:
    return REGIONS if context.get("game") else NO_GAME_REGIONS


def render_regions(context: dict, names, csrf_token: str = "") -> dict[str, str]:
    """Regions of state.html alone, each with `hx-swap-oob` (`context`: `decorated`),
    through one template context."""
    ctx = Context({**context, "swap": True, "csrf_token": csrf_token}, autoescape=True)
    return {name: get_template(f"{STATE_TEMPLATE}#{name}").template.render(ctx) for name in names}


def render_panels(panels) -> dict[int, str]:
    """state.html's seat panel of each of `panels`, by seat."""
    template = get_template(f"{STATE_TEMPLATE}#seat").template
    ctx = Context(autoescape=True)
    out = {}
    for p in panels:
        with ctx.push(p=p):
            out[p["seat"]] = template.render(ctx)
    return out


def with_shared_panels(context: dict, shared: Shared) -> dict:
    """The opponents' panels that every viewer sees alike, as `shared` rendered them."""
    out = {**context}
    for name in ("opponents_top", "opponents_left", "opponents_right"):
        out[name] = [
            {**p, "html": shared.panels[p["seat"]]}
            if not (p["is_me"] or p["is_partner"]) and p["seat"] in shared.panels
            else p
            for p in context.get(name) or ()
        ]
    return out


def error_fragment(message: str, language: str) -> str:
    """The refusal line (empty: cleared after every accepted frame)."""
    with translation.override(language):
        return render_to_string(ERROR_TEMPLATE, {"oob": True, "error": message})


def chat_fragment(message: dict, language: str) -> str:
    with translation.override(language):
        return render_to_string(CHAT_APPEND_TEMPLATE, {"message": message})


def chat_history_fragment(messages: list[dict], language: str) -> str:
    """The table's recent chat, replacing the list: what a (re)connecting socket missed."""
    with translation.override(language):
        return render_to_string(CHAT_HISTORY_TEMPLATE, {"chat_messages": messages})


# ---------------------------------------------------------------- shared regions


@dataclass(frozen=True)
class Shared:
    """The regions every viewer sees alike after one change, the seat panels as every
    viewer but that seat and its partner sees them (by seat), and the spectator's
    context they were rendered from (`table_context(..., spectator=)` reuses it)."""

    context: dict
    regions: dict
    panels: dict


_shared: OrderedDict = OrderedDict()
_shared_lock = threading.Lock()


def shared_regions_of(snapshot: dict, language: str, key) -> Shared:
    """The shared regions of a snapshot, rendered from the SPECTATOR's context by the
    first socket of the process that needs them, kept by (group message, language)."""
    with _shared_lock:
        found = _shared.get((key, language))
    if found is not None:
        return found
    with translation.override(language):
        spectator = presenters.table_context(snapshot, None, ())
        regions = render_regions(spectator, SHARED if spectator.get("game") else ())
        panels = render_panels(decorated(spectator).get("panels") or ())
    shared = Shared(context=spectator, regions=regions, panels=panels)
    with _shared_lock:
        _shared[(key, language)] = shared
        while len(_shared) > SHARED_CACHE_SIZE:
            _shared.popitem(last=False)
    return shared


def shared_parts_kept() -> int:
    """How many shared renders this process keeps now (at most SHARED_CACHE_SIZE)."""
    with _shared_lock:
        return len(_shared)


# ---------------------------------------------------------------- one socket's view


def new_log_lines(shown: list, log: list) -> list | None:
    """The lines of `log` after those `shown` (the window of the last lines may have
    slid by some), or None when the shown lines are not a start of it. (The longest
    overlap is taken: a shorter true one would need the whole window to repeat itself.)"""
    if not shown:
        return None
    for dropped in range(len(shown)):
        kept = shown[dropped:]
        if log[: len(kept)] == kept:
            return log[len(kept) :]
    return None


class LiveView:
    """What one socket has sent, so that an update carries only what changed."""

    def __init__(self, language: str, csrf_token: str = ""):
        self.language = language
        self.csrf_token = csrf_token
        self.regions: dict[str, str] = {}
        self.log: list = []

    def full(self, context: dict) -> str:
        """The whole state and log (on connect and re-sync); remembered region by region."""
        with translation.override(self.language):
            shown = decorated(context)
            html = _whole(shown, self.language, self.csrf_token)
            self.regions = render_regions(shown, region_names(context), self.csrf_token)
        self.log = list(context.get("log") or ())
        return html

    def update(self, context: dict, shared: Shared) -> str:
        """The regions that changed for this viewer, `#table-meta`, and the new log lines."""
        names = region_names(context)
        if tuple(self.regions) != names:  # a game dealt or gone: the page's layout changed
            return self.full(context)
        covers = any(pair["attack"].get("is_target") for pair in context.get("pairs") or ())
        from_shared = {name: shared.regions[name] for name in SHARED if name in shared.regions}
        if covers:
            from_shared.pop("pairs", None)
        with translation.override(self.language):
            own = [name for name in names if name not in from_shared]
            shown = with_shared_panels(decorated(context), shared)
            rendered = {**render_regions(shown, own, self.csrf_token), **from_shared}
            out = [html for name, html in rendered.items() if name == "meta" or self.regions.get(name) != html]
            self.regions = {name: rendered[name] for name in names}
            log = list(context.get("log") or ())
            added = new_log_lines(self.log, log)
            if added is None and log != self.log:
                out.append(render_to_string(LOG_TEMPLATE, {**context, "oob": True}))
            elif added:
                out.append(render_to_string(f"{LOG_TEMPLATE}#new_lines", {"new_lines": added}))
        self.log = log
        return "".join(out)
