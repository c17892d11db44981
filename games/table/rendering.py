"""Rendering the table fragments: the same templates serve the page and the socket.

state.html is made of named partials, one per region, each a top-level element
with a fixed id (`REGIONS`); log.html and error.html likewise. The page and a
socket's first frame (and every re-sync) render the whole `#table-state` and
`#table-log` (`live_fragments`). After a change a socket sends only what
changed for its viewer (`LiveView.update`): each region whose inputs changed
(`REGION_INPUTS`) is rendered, and sent as `hx-swap-oob` when its HTML differs
from what it sent last; `#table-meta` always (the move count and turn the
page's script copies onto `#table-state`), and only the new log lines (put on
top of the list). The regions every viewer sees alike (`SHARED`) are rendered
at most once per group message and language, when a socket first needs them,
from the spectator's context (`shared_regions_of`), so they can hold nothing a
seat alone may know. Seat panels, hand cards and pairs are rendered once per
value (`fragment`).

Other apps' additions (ratings next to names, chances) come through
`games.extensions`, read once per render by `extras_of` (its providers may query)
and added to the context by `decorated`. The page reads them in its request; a
socket renders on the event loop, so it reads them first off the loop
(`snapshot_extras` in a worker thread, once per change, language and process) and
passes them in.

- `#table-error`   the last refusal (empty after an accepted frame)
- `#chat-messages` new chat lines are appended to it (`hx-swap-oob="beforeend"`);
                   on (re)connect the whole recent chat replaces it
- `#t-emotes`      an emote is appended to it (talk.html#bubble), never to a muted player;
                   `#t-talk`, the emote bar, is sent again after its player's mute changed
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
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
TALK_TEMPLATE = "games/table/partials/talk.html"

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
    "said",
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
FRAGMENT_MEMORY = 4096  # seat panels, hand cards and pairs whose HTML one process keeps (`fragment`)

# What each region of state.html reads from the (decorated) context, as plain values:
# a region whose inputs equal those of the socket's last frame is neither rendered nor
# sent. ("meta" is always rendered and sent; the csrf token and language are the socket's.)
# Keep these in step with the template: tests/table/test_render_inputs.py renders every
# region afresh after every update and checks that none was left behind.
REGION_INPUTS = {
    "head": lambda c: (c["table"], c["rules_summary"], c["is_spectator"], bool(c["game"])),
    "seats_top": lambda c: c["opponents_top"],
    "seats_left": lambda c: c["opponents_left"],
    "seats_right": lambda c: c["opponents_right"],
    "deck": lambda c: (c["stock_size"], c["stock_backs"], c["trump_card_in_stock"], c["trump_card"], c["trump"]),
    "pairs": lambda c: (c["pairs"], c["attack_limit"], c["game"]["over"]),
    "discard": lambda c: c["discard_size"],
    "said": lambda c: (c["said"], c["game"]["id"]),
    "status": lambda c: (
        c["status_text"],
        c["seconds_left"],
        c["deadline"],
        c["on_autopilot"],
        c["can_return"],
        c["return_counts"],
        c["can_finish_now"],
        c["game_notes"],
        c["urls"],
        c["timeout_note"],
    ),
    "bottom": lambda c: (
        c["me"],
        c["hand"],
        c["buttons"],
        c["bottom"],
        c["viewer_seat"],
        c["table"]["id"],
        c["game"]["id"],
        c["game"]["over"],
    ),
    "fair": lambda c: (c["game"]["seed"], c["game"]["seed_hash"]),
    "result": lambda c: (c["result"], c["record_urls"]),
    "resign": lambda c: (c["seating"]["can_resign"], c["urls"], c["resign_counts"], c["claim_ready"]),
    "seating": lambda c: (
        c["seating"],
        bool(c["game"]),
        c["urls"],
        c["bot_choices"],
        c["default_bot"],
        c["signed_in"],
    ),
}


def region_inputs(context: dict) -> dict:
    """What each region of `context` (`decorated`) reads, by region ("meta" has none: always sent)."""
    return {name: REGION_INPUTS[name](context) for name in region_names(context) if name in REGION_INPUTS}


# The partials that read nothing but their own argument: the same argument, the same HTML.
FRAGMENTS = {"seat": "p", "hand_card": "c", "pair": "pair"}
_partials: tuple = (None, {})  # (state.html as the loader has it, its partials by name)


def state_partials() -> dict:
    """state.html's regions and seat panel as compiled templates, looked up once per
    compiled state.html (a template changed in development gives a new one)."""
    global _partials
    base = get_template(STATE_TEMPLATE).template
    kept, parts = _partials
    if kept is not base:
        names = (*REGIONS, *FRAGMENTS)
        parts = {name: get_template(f"{STATE_TEMPLATE}#{name}").template for name in names}
        _partials = (base, parts)
    return parts


def extras_of(context: dict) -> dict:
    """What other apps show at this table (`games.extensions`): the marks next to the
    names and the notes above the hand, the same for every viewer. The providers may
    query: never call this on the event loop (a socket calls `snapshot_extras` off it)."""
    table = context["table"]
    seating = context.get("seating") or {}
    panels = context.get("panels") or ()
    ids = [p.get("user_id") for p in panels] + [s.get("user_id") for s in seating.get("seats") or ()]
    return {"marks": extensions.seat_marks(table, ids), "game_notes": extensions.game_notes(table, context.get("game"))}


def snapshot_extras(snapshot: dict, language: str) -> dict:
    """`extras_of` a snapshot in a language, for a socket: read in a worker thread before
    it renders (the spectator's context names every seat and the game as all see it)."""
    with translation.override(language):
        return extras_of(presenters.table_context(snapshot, None, ()))


def decorated(context: dict, extras: dict | None = None) -> dict:
    """The context with what other apps show at the table: `extras` (`extras_of`, read
    before the render), or read now when none are given (a page's request, off the loop)."""
    if extras is None:
        extras = extras_of(context)
    marks = extras["marks"]
    extra = {"game_notes": extras["game_notes"]}
    if marks:

        def marked(p):
            return {**p, "mark": marks[p["user_id"]]} if p and p.get("user_id") in marks else p

        for name in ("panels", "opponents_top", "opponents_left", "opponents_right"):
            extra[name] = [marked(p) for p in context.get(name) or ()]
        extra["me"], extra["bottom"] = marked(context.get("me")), marked(context.get("bottom"))
        seating = context.get("seating") or {}
        extra["seating"] = {**seating, "seats": [marked(s) for s in seating.get("seats") or ()]}
    return {**context, **extra}


def live_fragments(context: dict, language: str, csrf_token: str = "", extras: dict | None = None) -> str:
    """State and log of one viewer, whole, as out-of-band swaps."""
    return _whole(decorated(context, extras), language, csrf_token)


def _whole(context: dict, language: str, csrf_token: str) -> str:
    context = {**context, "oob": True, "csrf_token": csrf_token}
    with translation.override(language):
        return render_to_string(STATE_TEMPLATE, context) + render_to_string(LOG_TEMPLATE, context)


def region_names(context: dict) -> tuple[str, ...]:
    return REGIONS if context.get("game") else NO_GAME_REGIONS


def render_regions(context: dict, names, csrf_token: str = "") -> dict[str, str]:
    """Regions of state.html alone, each with `hx-swap-oob` (`context`: `decorated`),
    through one template context."""
    parts = state_partials()
    ctx = fragment_context({**context, "swap": True, "csrf_token": csrf_token})
    return {name: parts[name].render(ctx) for name in names}


def fragment_context(values: dict) -> Context:
    """The template context of a fragment: plain (no request, no context processors), and
    without number localisation while thousands are not grouped (`USE_THOUSAND_SEPARATOR`
    off, as in the settings): the table's fragments print whole numbers and text only, a
    whole number then prints as `str()` either way, and the formats machinery was about a
    fifth of a region's render (docs/benchmarks.md, "Where the time of an action goes")."""
    return Context(values, autoescape=True, use_l10n=None if settings.USE_THOUSAND_SEPARATOR else False)


def render_panels(panels) -> dict[int, str]:
    """state.html's seat panel of each of `panels`, by seat."""
    return {p["seat"]: fragment("seat", p) for p in panels}


def _frozen(value):
    """`value` as a hashable key; equal keys for values a template prints alike."""
    kind = type(value)
    if kind is dict:
        return tuple([(name, _frozen(item)) for name, item in value.items()])
    if kind is list or kind is tuple:
        return tuple([_frozen(item) for item in value])
    if kind is str:
        return value
    return (kind, value)  # (True and 1 would be equal keys)


_fragments: OrderedDict = OrderedDict()


def fragment(name: str, value: dict, parts: dict | None = None, language: str | None = None) -> str:
    """The partial `name` of FRAGMENTS rendered for `value`, in the active language; a
    value seen before (by any socket, after any message) is not rendered again.
    (`parts`, `language`: `state_partials()` and the active language, when the caller has them.)"""
    parts = parts or state_partials()
    try:
        key = (name, language or translation.get_language(), _frozen(value))
        hash(key)
    except TypeError:  # (a value that cannot be a key is rendered every time)
        key = None
    with _shared_lock:
        found = _fragments.get(key) if key is not None else None
        if found is not None and found[0] is parts:
            _fragments.move_to_end(key)
            return found[1]
    html = parts[name].render(fragment_context({FRAGMENTS[name]: value}))
    if key is not None:
        with _shared_lock:
            _fragments[key] = (parts, html)
            while len(_fragments) > FRAGMENT_MEMORY:
                _fragments.popitem(last=False)
    return html


def new_lines_html(lines: list) -> str:
    """log.html's new lines (every seat of a table mostly gets the same: rendered once)."""
    base = get_template(LOG_TEMPLATE).template
    key = ("new_lines", tuple(lines))
    with _shared_lock:
        found = _fragments.get(key)
    if found is not None and found[0] is base:
        return found[1]
    html = render_to_string(f"{LOG_TEMPLATE}#new_lines", {"new_lines": lines})
    with _shared_lock:
        _fragments[key] = (base, html)
        while len(_fragments) > FRAGMENT_MEMORY:
            _fragments.popitem(last=False)
    return html


def with_fragments(context: dict, names, shared: Shared | None = None) -> dict:
    """`context` for rendering the regions `names`: their seat panels, hand cards and
    pairs carry their HTML (`fragment`; the opponents' panels every viewer sees alike
    as `shared` rendered them)."""
    parts, language = state_partials(), translation.get_language()

    def _with_html(item, name: str):
        return {**item, "html": fragment(name, item, parts, language)} if item and "html" not in item else item

    out = {**context}
    for name in names:
        if name.startswith("seats_"):
            key = "opponents_" + name.removeprefix("seats_")
            out[key] = [
                {**p, "html": shared.panels[p["seat"]]}
                if shared is not None and not (p["is_me"] or p["is_partner"]) and p["seat"] in shared.panels
                else _with_html(p, "seat")
                for p in context.get(key) or ()
            ]
        elif name == "bottom":
            out["me"], out["bottom"] = _with_html(context.get("me"), "seat"), _with_html(context.get("bottom"), "seat")
            out["hand"] = [_with_html(c, "hand_card") for c in context.get("hand") or ()]
        elif name == "pairs":
            out["pairs"] = [_with_html(pair, "pair") for pair in context.get("pairs") or ()]
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


def emote_bubble_fragment(seat: int, text: str) -> str:
    """An emote appended to `#t-emotes`, shown at `seat` (`text`: already in the viewer's language)."""
    return render_to_string(f"{TALK_TEMPLATE}#bubble", {"seat": seat, "text": text})


def emote_bar_fragment(table_id: int, emotes: list, mutes: dict, language: str) -> str:
    """The emote bar (`#t-talk`) with the player's mutes (`selectors.emote_mutes`), open."""
    context = {"table": {"id": table_id}, "emotes": emotes, "emote_mutes": mutes, "signed_in": True}
    with translation.override(language):
        return render_to_string(f"{TALK_TEMPLATE}#bar", {**context, "swap": True, "keep_open": True})


# ---------------------------------------------------------------- shared regions


class Rendered(Mapping):
    """HTML by name, each rendered by `make(name)` when first asked for: a region or a
    panel that no socket of the group needs (its inputs did not change) costs nothing."""

    def __init__(self, names, make):
        self._names = tuple(names)
        self._make = make
        self._done: dict = {}

    def __getitem__(self, name):
        if name not in self._done:
            if name not in self._names:
                raise KeyError(name)
            self._done[name] = self._make(name)  # (two sockets racing render the same HTML)
        return self._done[name]

    def __contains__(self, name):
        return name in self._names

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)


@dataclass(frozen=True)
class Shared:
    """The regions every viewer sees alike after one change, the seat panels as every
    viewer but that seat and its partner sees them (by seat), and the spectator's
    context they are rendered from (`table_context(..., spectator=)` reuses it).
    Each region and panel is rendered when a socket first needs it."""

    context: dict
    regions: Mapping
    panels: Mapping


_shared: OrderedDict = OrderedDict()
_shared_lock = threading.Lock()


def _shared_regions(spectator: dict, language: str) -> Rendered:
    def make(name):
        with translation.override(language):
            return render_regions(with_fragments(spectator, (name,)), (name,))[name]

    return Rendered(SHARED if spectator.get("game") else (), make)


def _shared_panels(spectator: dict, language: str, extras: dict | None) -> Rendered:
    shown = {}

    def make(seat):
        with translation.override(language):
            if not shown:  # decorated once per message, by the first socket that needs a panel
                shown.update((p["seat"], p) for p in decorated(spectator, extras).get("panels") or ())
            return fragment("seat", shown[seat])

    return Rendered([p["seat"] for p in spectator.get("panels") or ()], make)


def shared_regions_of(snapshot: dict, language: str, key, extras: dict | None = None) -> Shared:
    """The shared regions of a snapshot, rendered from the SPECTATOR's context for the
    sockets of the process that need them, kept by (group message, language); `extras`:
    the snapshot's (`snapshot_extras`), read before on the event loop."""
    with _shared_lock:
        found = _shared.get((key, language))
    if found is not None:
        return found
    with translation.override(language):
        spectator = presenters.table_context(snapshot, None, ())
    shared = Shared(
        context=spectator,
        regions=_shared_regions(spectator, language),
        panels=_shared_panels(spectator, language, extras),
    )
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
        self.inputs: dict = {}  # what each region was last rendered from (`region_inputs`)
        self.log: list = []

    def full(self, context: dict, extras: dict | None = None) -> str:
        """The whole state and log (on connect and re-sync); remembered region by region."""
        with translation.override(self.language):
            shown = decorated(context, extras)
            html = _whole(shown, self.language, self.csrf_token)
            self.regions = render_regions(shown, region_names(context), self.csrf_token)
            self.inputs = region_inputs(shown)
        self.log = list(context.get("log") or ())
        return html

    def update(self, context: dict, shared: Shared, extras: dict | None = None) -> str:
        """The regions that changed for this viewer, `#table-meta`, and the new log lines.
        Only the regions whose inputs changed are rendered (or taken from `shared`)."""
        names = region_names(context)
        if tuple(self.regions) != names:  # a game dealt or gone: the page's layout changed
            return self.full(context, extras)
        with translation.override(self.language):
            shown = decorated(context, extras)
            inputs = region_inputs(shown)
            due = [name for name in names if name not in inputs or inputs[name] != self.inputs.get(name)]
            covers = "pairs" in due and any(pair["attack"].get("is_target") for pair in context.get("pairs") or ())
            from_shared = {
                name: shared.regions[name]
                for name in due
                if name in SHARED and name in shared.regions and not (covers and name == "pairs")
            }
            own = [name for name in due if name not in from_shared]
            shown = with_fragments(shown, own, shared)
            rendered = {**render_regions(shown, own, self.csrf_token), **from_shared}
            out = [rendered[name] for name in due if name == "meta" or self.regions.get(name) != rendered[name]]
            self.regions.update(rendered)
            self.inputs = inputs
            log = list(context.get("log") or ())
            added = new_log_lines(self.log, log)
            if added is None and log != self.log:
                out.append(render_to_string(LOG_TEMPLATE, {**context, "oob": True}))
            elif added:
                out.append(new_lines_html(added))
        self.log = log
        return "".join(out)
