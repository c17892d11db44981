"""What one viewer sees of a live table: a pure function of a snapshot.

`table_context(snapshot, viewer_seat, events)` turns `selectors.table_snapshot`
into the template context of the table fragments. The snapshot holds the full
engine state (every hand); this module reads it ONLY through
`Game.view(viewer_seat)` and `event_for(event, viewer_seat)`, so whatever the
templates print is what that seat may know. No database, no request: the
websocket consumer calls it for every update from the snapshot alone.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache

from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import get_language, pgettext, pgettext_lazy

from games import engine
from games.engine.cards import RED_SUITS, SUIT_SYMBOLS
from games.selectors import cached_position

LOG_LIMIT = 30  # log lines a table shows

# Refusal reasons of the services that are fixed texts: translated when shown.
# (Engine reasons carry card codes and are shown as the engine words them.)
# Marked with the "refusal" context here (never evaluated), translated by `reason_text`.
KNOWN_REASONS = (
    pgettext_lazy("refusal", "Sign in to play."),
    pgettext_lazy("refusal", "You are not playing in this game."),
    pgettext_lazy("refusal", "That seat is not yours."),
    pgettext_lazy("refusal", "Your seat is on autopilot after repeated timeouts."),
    pgettext_lazy("refusal", "There is no such game."),
    pgettext_lazy("refusal", "The game is over."),
    pgettext_lazy("refusal", "Sign in to chat."),
    pgettext_lazy("refusal", "A chat message is text."),
    pgettext_lazy("refusal", "The message is empty."),
    pgettext_lazy("refusal", "A message is at most 300 characters."),
    pgettext_lazy("refusal", "There is no such table."),
    pgettext_lazy("refusal", "You are sending messages too fast: wait a few seconds."),
)


def reason_text(reason: str) -> str:
    """A service's refusal in the viewer's language when it is a known fixed text."""
    return pgettext("refusal", reason)


BOT_LABELS = {
    "random": pgettext_lazy("bot level", "Novice"),
    "heuristic": pgettext_lazy("bot level", "Club player"),
}


def bot_label(level: str) -> str:
    if level in BOT_LABELS:
        return str(BOT_LABELS[level])
    from games import bots

    return dict(bots.BOT_LEVELS).get(level, level)


def bot_choices() -> list[dict]:
    from games import bots

    return [{"level": level, "label": bot_label(level)} for level, _name in bots.BOT_LEVELS]


SEAT_ACTIONS = ("join", "leave", "start", "bot", "resign")  # POST views of games/lobby


@lru_cache(maxsize=256)
def _table_urls(table_id: int) -> tuple:
    urls = []
    for name in SEAT_ACTIONS:
        try:
            urls.append((name, reverse(f"games:table-{name}", args=[table_id])))
        except NoReverseMatch:
            urls.append((name, ""))
    return tuple(urls)


def table_urls(table_id: int) -> dict:
    """The lobby's seat views for this table ("" for one that does not exist)."""
    return dict(_table_urls(table_id))


# ------------------------------------------------------------------ cards


def card(code: str, trump: str | None = None) -> dict:
    """A card as the templates draw it."""
    suit = code[-1]
    return {
        "code": code,
        "rank": code[:-1],
        "suit": suit,
        "symbol": SUIT_SYMBOLS[suit],
        "is_red": suit in RED_SUITS,
        "is_trump": suit == trump,
        "playable": False,
        "action": "",
        "actions": [],
        "targets": [],
    }


def card_html(code: str) -> str:
    """A small inline card for log lines and buttons."""
    suit = code[-1]
    colour = "red" if suit in RED_SUITS else "black"
    return format_html(
        '<span class="t-mini {}" data-card="{}">{}{}</span>', colour, code, code[:-1], SUIT_SYMBOLS[suit]
    )


def _hand_cards(hand: list[str], legal: list[str], trump: str) -> list[dict]:
    """Own hand, each card with the actions a click on it can take."""
    by_card: dict[str, list[str]] = {}
    targets: dict[str, list[str]] = {}
    for action in legal:
        parts = action.split()
        if parts[0] == "defend":
            targets.setdefault(parts[3], []).append(parts[1])
            by_card.setdefault(parts[3], []).append(action)
        elif len(parts) == 2:
            by_card.setdefault(parts[1], []).append(action)
    cards = []
    for code in hand:
        c = card(code, trump)
        actions = by_card.get(code, [])
        c["actions"] = actions
        c["targets"] = targets.get(code, [])
        direct = [a for a in actions if a.split()[0] in ("attack", "transfer")]
        if len(c["targets"]) == 1 and not direct:
            c["action"] = f"defend {c['targets'][0]} with {code}"
        elif not c["targets"] and direct:
            c["action"] = direct[0]
        c["playable"] = bool(c["action"] or c["targets"])
        cards.append(c)
    return cards


# ------------------------------------------------------------------ seats


def _seat_name(seat: dict | None, number: int) -> str:
    if seat is None:
        return pgettext("table", "Seat %(n)s") % {"n": number + 1}
    if seat.get("name"):
        return seat["name"]
    if seat.get("bot_level"):
        return pgettext("table", "Bot %(n)s") % {"n": number + 1}
    return pgettext("table", "Seat %(n)s") % {"n": number + 1}


def viewer_seat(snapshot: dict | None, user_id) -> int | None:
    """The seat `user_id` plays: in the current game, else at the table."""
    if not snapshot or user_id is None:
        return None
    game = snapshot.get("game")
    if game and game.get("status") == "playing":
        seats = game["seats"]
    else:
        seats = snapshot["seats"]
    for s in seats:
        if s.get("user_id") == user_id:
            return s["number"]
    if game and game.get("status") != "playing":
        for s in game["seats"]:  # a finished game's players still see their seat
            if s.get("user_id") == user_id:
                return s["number"]
    return None


def may_watch(snapshot: dict | None, user_id, invited_tables=()) -> bool:
    """Public tables: everyone. Private ones: their players and invited guests."""
    if not snapshot:
        return False
    table = snapshot["table"]
    if not table["is_private"]:
        return True
    if user_id is not None:
        if table.get("host_id") == user_id:
            return True
        seats = list(snapshot["seats"]) + list((snapshot.get("game") or {}).get("seats") or [])
        if any(s.get("user_id") == user_id for s in seats):
            return True
    try:
        invited = {int(t) for t in invited_tables or ()}
    except (TypeError, ValueError):
        invited = set()
    return table["id"] in invited


def _slots(count: int) -> list[str]:
    """Where opponents sit around the felt, clockwise from the viewer's left."""
    return {
        0: [],
        1: ["top"],
        2: ["top", "top"],
        3: ["left", "top", "right"],
        4: ["left", "top", "top", "right"],
        5: ["left", "top", "top", "top", "right"],
    }.get(count, ["top"] * count)


def _role(view: dict, s: dict) -> str:
    number = s["seat"]
    if view["is_over"]:
        return ""
    if not s["in_game"]:
        return "out"
    if number == view["defender"]:
        return "defender"
    if number == view["attacker"]:
        return "attacker"
    if view["table"] and (s["to_move"] or s["passed"]):
        return "thrower"
    return ""


ROLE_LABELS = {
    "attacker": pgettext_lazy("role", "Attacks"),
    "defender": pgettext_lazy("role", "Defends"),
    "thrower": pgettext_lazy("role", "Throws in"),
    "out": pgettext_lazy("role", "Out"),
}


def _seat_panel(view: dict, s: dict, game_seat: dict | None, viewer: int | None, trump: str) -> dict:
    number = s["seat"]
    role = _role(view, s)
    rules = view["rules"]
    return {
        "seat": number,
        "name": _seat_name(game_seat, number),
        "is_bot": bool(game_seat and game_seat.get("bot_level")),
        "bot_label": bot_label(game_seat["bot_level"]) if game_seat and game_seat.get("bot_level") else "",
        "autopilot": bool(game_seat and game_seat.get("autopilot")),
        "abandoned": bool(game_seat and game_seat.get("abandoned")),
        "count": s["cards"],
        "backs": range(min(s["cards"], 8)),
        "known": [card(c, trump) for c in s["known"]],
        "role": role,
        "role_label": str(ROLE_LABELS[role]) if role else "",
        "passed": s["passed"] and not view["is_over"],
        "place": s["place"],
        "to_move": s["to_move"],
        "team": s["team"],
        "is_partner": bool(rules.get("partners"))
        and viewer is not None
        and number != viewer
        and s["team"] == view["seats"][viewer]["team"],
        "is_me": number == viewer,
    }


# ------------------------------------------------------------------ log


def _names_html(numbers, names) -> str:
    return format_html_join(", ", "<b>{}</b>", ((names.get(n, "?"),) for n in numbers))


def log_line(event: dict, names: dict[int, str]) -> str:
    """One event, already redacted for the viewer, as a translated HTML line."""
    key = json.dumps(event, sort_keys=True, default=str)
    return _log_line(get_language(), key, tuple(sorted(names.items())))


@lru_cache(maxsize=4096)
def _log_line(language: str, event_json: str, names: tuple) -> str:
    return _format_log_line(json.loads(event_json), dict(names))


def _format_log_line(event: dict, names: dict[int, str]) -> str:
    kind = event.get("type")

    def who(key="seat"):
        return format_html("<b>{}</b>", names.get(event.get(key), "?"))

    def cards(codes):
        return format_html_join(" ", "{}", ((card_html(c),) for c in codes))

    if kind == "attack":
        return format_html(pgettext("table", "{name} plays {card}"), name=who(), card=card_html(event["card"]))
    if kind == "defend":
        return format_html(
            pgettext("table", "{name} beats {target} with {card}"),
            name=who(),
            target=card_html(event["target"]),
            card=card_html(event["card"]),
        )
    if kind == "transfer":
        return format_html(
            pgettext("table", "{name} transfers with {card} to {other}"),
            name=who(),
            card=card_html(event["card"]),
            other=who("defender"),
        )
    if kind == "show":
        return format_html(
            pgettext("table", "{name} shows {card} and transfers to {other}"),
            name=who(),
            card=card_html(event["card"]),
            other=who("defender"),
        )
    if kind == "take":
        return format_html(pgettext("table", "{name} takes the cards"), name=who())
    if kind == "pass":
        return format_html(pgettext("table", "{name} has nothing to add"), name=who())
    if kind == "swap":
        return format_html(
            pgettext("table", "{name} swaps {card} for the trump card {took}"),
            name=who(),
            card=card_html(event["card"]),
            took=card_html(event["took"]),
        )
    if kind == "bout_end":
        if event.get("result") == "pick_up":
            return format_html(
                pgettext("table", "{name} picks up {cards}"), name=who("defender"), cards=cards(event.get("cards", []))
            )
        return format_html("{}", pgettext("table", "Beaten: the cards go to the discard pile"))
    if kind == "bout_start":
        return format_html(
            pgettext("table", "New bout: {name} attacks {other}"), name=who("attacker"), other=who("defender")
        )
    if kind == "draw":
        if "cards" in event:
            return format_html(pgettext("table", "{name} draws {cards}"), name=who(), cards=cards(event["cards"]))
        return format_html(
            pgettext("table", "{name} draws cards from the stock: {count}"), name=who(), count=event.get("count", 0)
        )
    if kind == "left":
        return format_html(
            pgettext("table", "{name} is out of the game: place {place}"), name=who(), place=event.get("place")
        )
    if kind == "game_over":
        if event.get("draw"):
            return format_html("{}", pgettext("table", "Game over: a draw"))
        if event.get("durak") is not None:
            return format_html(pgettext("table", "Game over: {name} is the durak"), name=who("durak"))
        return format_html(
            pgettext("table", "Game over: {names} lose"), names=_names_html(event.get("losers", []), names)
        )
    if kind == "deal":
        return format_html("{}", pgettext("table", "The cards are dealt"))
    return ""


# ------------------------------------------------------------------ the whole context


def _iso_ms(value: str | None) -> tuple[str, float | None]:
    if not value:
        return "", None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return "", None
    return moment.isoformat(timespec="milliseconds"), moment.timestamp()


def _rules_summary(rules: dict) -> list[str]:
    bits = [
        pgettext("table", "Perevodnoy") if rules.get("variant") == "perevodnoy" else pgettext("table", "Podkidnoy"),
        pgettext("table", "%(n)s players") % {"n": rules.get("players")},
        pgettext("table", "%(n)s cards") % {"n": rules.get("deck")},
    ]
    if rules.get("partners"):
        bits.append(pgettext("table", "partners"))
    if rules.get("throw_in") == "neighbours":
        bits.append(pgettext("table", "neighbours throw in"))
    if rules.get("first_bout_limit") == 6:
        bits.append(pgettext("table", "6 cards in the first bout"))
    if rules.get("trump_show_transfer"):
        bits.append(pgettext("table", "transfer by showing a trump"))
    if rules.get("trump_six_swap"):
        bits.append(pgettext("table", "trump six swap"))
    return bits


def _log_lines(events, viewer_seat: int | None, names: dict, memo: dict | None) -> list[str]:
    """The events' log lines, each redacted for the viewer (`engine.event_for`).

    `memo` (optional, owned by the caller, e.g. one websocket consumer) keeps the
    line of each event object it has already formatted for this viewer, language
    and names, so a live table formats only the new events of each update.
    """
    language, names_key = get_language(), tuple(sorted(names.items()))
    lines = []
    seen = {} if memo is not None else None
    for event in events:
        line = None
        if memo is not None:
            hit = memo.get(id(event))
            # (the entry holds the event itself, so its id cannot have been reused)
            if hit is not None and hit[0] is event and hit[1:4] == (viewer_seat, language, names_key):
                line = hit[4]
        if line is None:
            redacted = engine.event_for(event, viewer_seat)
            line = _log_line(language, json.dumps(redacted, sort_keys=True, default=str), names_key)
        if seen is not None:
            seen[id(event)] = (event, viewer_seat, language, names_key, line)
        if line:
            lines.append(line)
    if memo is not None:
        memo.clear()
        memo.update(seen)
    return lines


def table_context(
    snapshot: dict,
    viewer_seat: int | None,
    events=(),
    *,
    viewer_id=None,
    now=None,
    log_limit: int = LOG_LIMIT,
    log_memo: dict | None = None,
) -> dict:
    """The template context of a table for one viewer (None: a spectator).

    `log_memo`: see `_log_lines` (a live consumer passes its own dict)."""
    table = snapshot["table"]
    game = snapshot.get("game")
    context = {
        "table": table,
        "rules_summary": _rules_summary(table["rules"]),
        "viewer_seat": viewer_seat,
        "viewer_id": viewer_id,
        "is_spectator": viewer_seat is None,
        "is_host": viewer_id is not None and viewer_id == table.get("host_id"),
        "signed_in": viewer_id is not None,
        "game": None,
        "view": None,
        "log": [],
    }
    context["seating"] = _seating(snapshot, viewer_id, context["is_host"])
    context["urls"] = table_urls(table["id"])
    context["bot_choices"] = bot_choices()
    if game is None:
        return context

    position = cached_position(game["state_json"])  # shared and read-only: parsed once per snapshot
    if viewer_seat is not None and not 0 <= viewer_seat < position.n:
        viewer_seat = None
    view = position.view(viewer_seat)
    del position  # nothing below may look past the view
    trump = view["trump"]
    game_seats = {s["number"]: s for s in game["seats"]}
    names = {n: _seat_name(game_seats.get(n), n) for n in range(len(view["seats"]))}
    panels = [_seat_panel(view, s, game_seats.get(s["seat"]), viewer_seat, trump) for s in view["seats"]]
    n = len(panels)
    bottom = viewer_seat if viewer_seat is not None else 0
    others = [panels[(bottom + i) % n] for i in range(1, n)]
    for panel, slot in zip(others, _slots(len(others))):
        panel["slot"] = slot
    legal = view["legal_actions"]
    uncovered_targets = {a.split()[1] for a in legal if a.startswith("defend ")}

    buttons = []
    if "take" in legal:
        buttons.append({"action": "take", "kind": "take", "label": pgettext("table", "Take"), "card": None})
    if "pass" in legal:
        # "Бито" when every card is covered, "Пас" when the defender has taken.
        label = pgettext("table", "Pass") if view["taking"] else pgettext("table", "Done")
        buttons.append({"action": "pass", "kind": "pass", "label": label, "card": None})
    for action in legal:
        kind, _, code = action.partition(" ")
        if kind == "transfer":
            buttons.append(
                {"action": action, "kind": kind, "label": pgettext("table", "Transfer"), "card": card(code, trump)}
            )
        elif kind == "show":
            buttons.append(
                {
                    "action": action,
                    "kind": kind,
                    "label": pgettext("table", "Show to transfer"),
                    "card": card(code, trump),
                }
            )
        elif kind == "swap":
            buttons.append(
                {
                    "action": action,
                    "kind": kind,
                    "label": pgettext("table", "Swap for the trump card"),
                    "card": card(code, trump),
                }
            )

    pairs = []
    for attack, defence in view["table"]:
        a = card(attack, trump)
        a["is_target"] = attack in uncovered_targets
        pairs.append({"attack": a, "defence": card(defence, trump) if defence else None})

    over = view["is_over"] or game.get("status") == "finished"
    deadline, deadline_ts = _iso_ms(game.get("deadline"))
    now = now or timezone.now()
    seconds_left = None
    if deadline_ts is not None and not over and view["to_move"]:
        seconds_left = max(0, int(round(deadline_ts - now.timestamp())))
    else:
        deadline = ""

    me = panels[viewer_seat] if viewer_seat is not None else None
    my_turn = viewer_seat is not None and viewer_seat in view["to_move"]
    waiting_for = [names[s] for s in view["to_move"] if s != viewer_seat]
    status = _status(view, viewer_seat, my_turn, waiting_for, over)

    lines = _log_lines(events, viewer_seat, names, log_memo)
    context.update(
        {
            "game": {
                "id": game["id"],
                "number": game["number"],
                "status": game["status"],
                "over": over,
                "move_count": game["move_count"],
                "seed_hash": game.get("seed_hash"),
                "seed": game.get("seed") if over else None,
                "turn_seconds": game.get("turn_seconds"),
            },
            "view": view,
            "trump": {"suit": trump, "symbol": SUIT_SYMBOLS[trump], "is_red": trump in RED_SUITS},
            "trump_card": card(view["trump_card"], trump) if view["trump_card"] else None,
            "trump_card_in_stock": view["trump_card_in_stock"],
            "stock_size": view["stock_size"],
            "stock_backs": range(min(view["stock_size"] - (1 if view["trump_card_in_stock"] else 0), 3)),
            "discard_size": view["discard_size"],
            "panels": panels,
            "me": me,
            "bottom": panels[bottom] if viewer_seat is None else None,
            "opponents": others,
            "opponents_left": [p for p in others if p["slot"] == "left"],
            "opponents_top": [p for p in others if p["slot"] == "top"],
            "opponents_right": [p for p in others if p["slot"] == "right"],
            "hand": _hand_cards(view["hand"], legal, trump) if viewer_seat is not None else [],
            "pairs": pairs,
            "attack_limit": view["attack_limit"],
            "buttons": buttons,
            "legal_actions": legal,
            "my_turn": my_turn,
            "to_move_names": waiting_for,
            "status_text": status,
            "deadline": deadline,
            "seconds_left": seconds_left,
            "log": lines[-log_limit:],
            "result": _result(game, view, names) if over else None,
        }
    )
    return context


def _status(view, viewer_seat, my_turn, waiting_for, over) -> str:
    if over:
        return pgettext("table", "Game over")
    if my_turn:
        if not view["table"]:
            return pgettext("table", "Your move: lead a card")
        if viewer_seat == view["defender"]:
            return pgettext("table", "Your move: beat the cards or take them")
        return pgettext("table", "Your move: throw in or say you are done")
    if waiting_for:
        return pgettext("table", "Waiting for %(names)s") % {"names": ", ".join(waiting_for)}
    return ""


def _result(game: dict, view: dict, names: dict) -> dict:
    result = game.get("result") or {
        "places": view["places"],
        "durak": view["durak"],
        "losers": view["losers"],
        "draw": not view["losers"],
    }
    abandoned = {s["number"] for s in game["seats"] if s.get("abandoned")}
    places = sorted(((int(s), p) for s, p in (result.get("places") or {}).items()), key=lambda sp: (sp[1], sp[0]))
    losers = result.get("losers") or []
    return {
        "places": [
            {"seat": s, "name": names.get(s, "?"), "place": p, "is_loser": s in losers, "abandoned": s in abandoned}
            for s, p in places
        ],
        "draw": bool(result.get("draw")),
        "durak": names.get(result["durak"]) if result.get("durak") is not None else None,
        "losers": [names.get(s, "?") for s in losers],
        "pair": len(losers) > 1,
    }


def _seating(snapshot: dict, viewer_id, is_host: bool) -> dict:
    """The seats before a deal (and between games), with what the viewer may do."""
    table = snapshot["table"]
    game = snapshot.get("game")
    seated = viewer_id is not None and any(s.get("user_id") == viewer_id for s in snapshot["seats"])
    open_table = table["status"] in ("waiting", "finished")
    seats = []
    for s in snapshot["seats"]:
        empty = not s.get("user_id") and not s.get("bot_level")
        seats.append(
            {
                "number": s["number"],
                "label": s["number"] + 1,
                "name": _seat_name(s, s["number"]) if not empty else "",
                "is_me": viewer_id is not None and s.get("user_id") == viewer_id,
                "is_bot": bool(s.get("bot_level")) and not s.get("user_id"),
                "bot_label": bot_label(s["bot_level"]) if s.get("bot_level") else "",
                "empty": empty,
                "can_join": open_table
                and table["status"] == "waiting"
                and empty
                and viewer_id is not None
                and not seated,
                "can_set_bot": open_table and is_host and empty and not table.get("rated"),
                "can_remove_bot": open_table and is_host and bool(s.get("bot_level")) and not s.get("user_id"),
            }
        )
    playing = bool(game and game.get("status") == "playing")
    return {
        "show": not playing and table["status"] != "closed",
        "seats": seats,
        "seated": seated,
        "can_leave": seated and not playing,
        "can_resign": playing
        and viewer_id is not None
        and any(s.get("user_id") == viewer_id and not s.get("autopilot") for s in game["seats"]),
        "can_start": open_table and seated and (is_host or table["status"] == "finished"),
        "play_again": table["status"] == "finished",
        "free_seats": sum(1 for s in seats if s["empty"]),
        "closed": table["status"] == "closed",
    }
