"""The template context of a live table for one viewer: seats, felt, status, result, seating."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import pgettext, pgettext_lazy

from games import bots, display, positions, wording
from games.services import claim
from games.services.play import result_places, return_counts_normally

from .cards import buttons, hand_cards, table_pairs
from .log import LOG_LIMIT, closing_lines, log_lines
from .talk import declarations, timeout_note, unplayable_reason

SEAT_ACTIONS = ("join", "leave", "start", "bot", "resign", "back", "finish", "claim")  # POST views of games/lobby

ROLE_LABELS = {
    "attacker": pgettext_lazy("role", "Attacks"),
    "defender": pgettext_lazy("role", "Defends"),
    "taker": pgettext_lazy("role", "Takes"),  # the defender who said «Беру», until the bout ends
    "thrower": pgettext_lazy("role", "Throws in"),
    "out": pgettext_lazy("role", "Out"),
}

# What each seat's panel says of its player's presence, to everyone at the table.
PRESENCE_LABELS = {
    "online": pgettext_lazy("presence", "online"),
    "offline": pgettext_lazy("presence", "offline"),
}


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


def bot_choices() -> list[dict]:
    return [{"level": level, "label": label} for level, label in display.bot_choices()]


def _default_bot(table_level: str) -> str:
    """The bot dropdown's first choice: the table's own level (as the dropdown names it), else the club player."""
    offered = {c["level"] for c in bot_choices()}
    level = getattr(bots, "canonical_level", lambda name: name)(table_level) if table_level else ""
    return level if level in offered else display.default_bot_level()


def table_summary(rules: dict) -> list[str]:
    """The table's header line: variant, players, then the options."""
    return [
        display.variant_name(rules.get("variant", "")),
        display.players_text(rules.get("players", 0)),
        *display.rules_summary(rules),
    ]


# ------------------------------------------------------------------ seats


def _seat_name(seat: dict | None, number: int) -> str:
    seat = seat or {}
    return display.seat_player_name(seat.get("name") or "", seat.get("bot_level") or "", number)


def _seat_addresses(snapshot: dict, game_seats: dict) -> dict[int, str]:
    """How each seat's player asked to be spoken of (games.wording); a bot or guest: none chosen."""
    known = snapshot.get("addresses") or {}
    return {n: known.get(str(seat.get("user_id")), "") for n, seat in game_seats.items()}


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


def _stopped(view: dict) -> dict:
    """The view of a game ended off the cards: over, nobody to move, no action open."""
    return {
        **view,
        "is_over": True,
        "to_move": [],
        "legal_actions": [],
        "seats": [{**s, "to_move": False, "passed": False} for s in view["seats"]],
    }


def _presence(game_seat: dict | None, offline: dict) -> str:
    """A person's seat: "left" once the autopilot plays it for the rest of the game
    (resigned, timeouts, claimed against), else "offline" while his table socket is
    closed (`TableSeat.offline_since`), else "online". A bot's seat or an empty one: ""."""
    if not game_seat or not game_seat.get("user_id"):
        return ""
    if game_seat.get("autopilot"):
        return "left"
    return "offline" if game_seat["user_id"] in offline else "online"


def _presence_label(presence: str, address: str) -> str:
    if presence == "left":  # a past verb: in the player's gender
        return wording.said_of(wording.PRESENCE_LEFT, address)
    return str(PRESENCE_LABELS[presence]) if presence else ""


def _seat_panel(
    view: dict,
    s: dict,
    game_seat: dict | None,
    viewer: int | None,
    trump: str,
    offline: dict | None = None,
    address: str = "",
) -> dict:
    number = s["seat"]
    role = _role(view, s)
    label = "taker" if role == "defender" and view["taking"] else role
    rules = view["rules"]
    bot_level = game_seat.get("bot_level") if game_seat else ""
    presence = _presence(game_seat, offline or {})
    return {
        "seat": number,
        "name": _seat_name(game_seat, number),
        "user_id": game_seat.get("user_id") if game_seat else None,  # (ratings next to names)
        "is_bot": bool(bot_level),
        "bot_label": display.bot_label(bot_level) if bot_level else "",
        "autopilot": bool(game_seat and game_seat.get("autopilot")),
        "abandoned": bool(game_seat and game_seat.get("abandoned")),
        "presence": presence,
        "presence_label": _presence_label(presence, address),
        "count": s["cards"],
        "backs": range(min(s["cards"], 8)),
        "known": [display.card(c, trump) for c in s["known"]],
        "role": role,
        "role_label": str(ROLE_LABELS[label]) if role else "",
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


def _viewers_panel(panel: dict, view: dict, viewer: int | None) -> dict:
    """A spectator's seat panel (`_seat_panel(..., None, ...)`) as `viewer` sees it: only
    "is this me" and "is this my partner" depend on who looks."""
    number = panel["seat"]
    return {
        **{name: value for name, value in panel.items() if name != "slot"},
        "is_partner": bool(view["rules"].get("partners"))
        and viewer is not None
        and number != viewer
        and panel["team"] == view["seats"][viewer]["team"],
        "is_me": number == viewer,
    }


# ------------------------------------------------------------------ the whole context


def _offline(snapshot: dict) -> dict:
    """{user id: offline since} of the snapshot's seats (`selectors.snapshot_of`)."""
    found = {}
    for user_id, since in (snapshot.get("offline") or {}).items():
        try:
            found[int(user_id)] = datetime.fromisoformat(since)
        except (TypeError, ValueError):
            continue
    return found


def _claim_opens_at(view: dict, game: dict, viewer_id, offline: dict):
    """When the viewer may claim the game over an opponent gone offline (None: not at all)."""
    if game.get("turn_seconds") or view["is_over"] or game.get("status") != "playing":
        return None
    places = {s["seat"]: s["place"] for s in view["seats"]}
    rows = [{**s, "autopilot": s.get("autopilot"), "place": places.get(s["number"])} for s in game["seats"]]
    teams = {s["seat"]: s["team"] for s in view["seats"]} if view["rules"].get("partners") else None
    return claim.claim_opens_at(claim.leavers(rows, offline, viewer_id, teams))


def _iso_ms(value: str | None) -> tuple[str, float | None]:
    if not value:
        return "", None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return "", None
    return moment.isoformat(timespec="milliseconds"), moment.timestamp()


def table_context(
    snapshot: dict,
    viewer_seat: int | None,
    events=(),
    *,
    viewer_id=None,
    now=None,
    log_limit: int = LOG_LIMIT,
    log_memo: dict | None = None,
    spectator: dict | None = None,
) -> dict:
    """The template context of a table for one viewer (None: a spectator).

    The snapshot (`selectors.table_snapshot`) holds the full engine state; this
    reads it ONLY through `Game.view(viewer_seat)` and (the log)
    `engine.event_for(event, viewer_seat)`, so whatever the templates print is
    what that seat may know. `log_memo`: see `log.log_lines` (a live consumer
    passes its own dict). `spectator`: the spectator's context of the SAME
    snapshot in the same language, when the caller has it (a live table renders
    it once per move): what every viewer sees alike is taken from it.
    """
    table = snapshot["table"]
    game = snapshot.get("game")
    context = {
        "table": table,
        "rules_summary": spectator["rules_summary"] if spectator else table_summary(table["rules"]),
        "viewer_seat": viewer_seat,
        "viewer_id": viewer_id,
        "is_spectator": viewer_seat is None,
        "is_host": viewer_id is not None and viewer_id == table.get("host_id"),
        "signed_in": viewer_id is not None,
        "game": None,
        "view": None,
        "log": [],
    }
    context["seating"] = _seating(snapshot, viewer_id, context["is_host"], spectator["seating"] if spectator else None)
    if spectator:
        for name in ("urls", "bot_choices", "default_bot"):
            context[name] = spectator[name]
    else:
        context["urls"] = table_urls(table["id"])
        context["bot_choices"] = bot_choices()
        context["default_bot"] = _default_bot(table.get("bot_level") or "")
    if game is None:
        return context

    position = positions.shared_position(game["state_json"])  # shared and read-only
    if viewer_seat is not None and not 0 <= viewer_seat < position.n:
        viewer_seat = None
    view = position.view(viewer_seat)
    final_result = position.result() if position.is_over else None  # public once over
    ended_off_the_cards = game.get("status") == "finished" and not view["is_over"]
    if ended_off_the_cards:
        # Claimed, forfeited or adjudicated: the cards stopped where they lay, but nobody
        # attacks, defends or moves any more.
        view = _stopped(view)
    del position  # nothing below may look past the view
    trump = view["trump"]
    game_seats = {s["number"]: s for s in game["seats"]}
    names = (spectator or {}).get("seat_names") or {
        n: _seat_name(game_seats.get(n), n) for n in range(len(view["seats"]))
    }
    addresses = (spectator or {}).get("seat_addresses") or _seat_addresses(snapshot, game_seats)
    offline = _offline(snapshot)
    if spectator and spectator.get("panels"):
        panels = [_viewers_panel(p, view, viewer_seat) for p in spectator["panels"]]
    else:
        panels = [
            _seat_panel(view, s, game_seats.get(s["seat"]), viewer_seat, trump, offline, addresses.get(s["seat"], ""))
            for s in view["seats"]
        ]
    n = len(panels)
    bottom = viewer_seat if viewer_seat is not None else 0
    others = [panels[(bottom + i) % n] for i in range(1, n)]
    for panel, slot in zip(others, _slots(len(others))):
        panel["slot"] = slot
    legal = view["legal_actions"]

    over = view["is_over"] or game.get("status") == "finished"
    deadline, deadline_ts = _iso_ms(game.get("deadline"))
    now = now or timezone.now()
    seconds_left = None
    if deadline_ts is not None and not over and view["to_move"]:
        seconds_left = max(0, int(round(deadline_ts - now.timestamp())))
    else:
        deadline = ""

    me = panels[viewer_seat] if viewer_seat is not None else None
    my_seat = game_seats.get(viewer_seat) if viewer_seat is not None else None
    claim_opens_at = _claim_opens_at(view, game, viewer_id, offline) if viewer_seat is not None else None
    # On autopilot (three timeouts, or a resign) the seat is the bot's: no "your move",
    # no raised cards, no buttons; only "I'm back" while the seat is still in the game.
    on_autopilot = bool(my_seat and my_seat.get("autopilot")) and not over
    if on_autopilot:
        legal = []
    my_turn = viewer_seat is not None and viewer_seat in view["to_move"] and not on_autopilot
    waiting_for = [names[s] for s in view["to_move"] if s != viewer_seat or on_autopilot]
    lines = log_lines(events, viewer_seat, names, log_memo, addresses)
    if ended_off_the_cards:
        lines += closing_lines(game.get("result") or {}, names, addresses)
    still_playing = [s["seat"] for s in view["seats"] if s["in_game"]]
    bots_only = bool(still_playing) and all(
        (game_seats.get(n) or {}).get("bot_level") or (game_seats.get(n) or {}).get("autopilot") for n in still_playing
    )
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
            "seat_names": names,
            "seat_addresses": addresses,
            "trump": display.suit(trump),
            "trump_card": display.card(view["trump_card"], trump),
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
            "hand": hand_cards(
                view["hand"], legal, trump, unplayable_reason(view, viewer_seat, my_turn, on_autopilot, over)
            )
            if viewer_seat is not None
            else [],
            "pairs": table_pairs(view["table"], legal, trump),
            "attack_limit": view["attack_limit"],
            "buttons": buttons(legal, view["taking"], trump, view["trump_card"]),
            "legal_actions": legal,
            "my_turn": my_turn,
            "to_move_names": waiting_for,
            "status_text": _status(view, viewer_seat, my_turn, waiting_for, over, on_autopilot),
            "on_autopilot": on_autopilot,
            "said": declarations(events, game["move_count"], n),
            "timeout_note": timeout_note(events, viewer_seat),
            "can_return": on_autopilot and me is not None and me["place"] is None,
            "back_label": wording.said_of(wording.BACK_BUTTON, addresses.get(viewer_seat)) if on_autopilot else "",
            "return_counts": return_counts_normally(bool(table.get("rated"))),
            # (offered to a player whose part is over; the service also lets a resigned one finish)
            "can_finish_now": me is not None and me["place"] is not None and not over and bots_only,
            "record_urls": (spectator["record_urls"] if spectator else record_urls(game["id"])) if over else None,
            "deadline": deadline,
            "seconds_left": seconds_left,
            # (a live socket re-renders at `claim_opens_at`, when the button appears)
            "claim_opens_at": claim_opens_at,
            "claim_ready": claim_opens_at is not None and claim_opens_at <= now,
            "log": lines[-log_limit:],
            "result": (
                (
                    spectator["result"]
                    if spectator
                    else _result(game.get("result") or final_result or {}, game, names, view["rules"], addresses)
                )
                if over
                else None
            ),
            "resign_counts": (
                spectator["resign_counts"] if spectator else _resign_counts(view["rules"], bool(table.get("rated")))
            ),
        }
    )
    return context


def _status(view, viewer_seat, my_turn, waiting_for, over, on_autopilot=False) -> str:
    if over:
        return pgettext("table", "Game over")
    if on_autopilot:
        return pgettext("table", "The autopilot plays your cards.")
    if my_turn:
        if not view["table"]:
            return pgettext("table", "Your move: lead a card")
        if viewer_seat == view["defender"]:
            return pgettext("table", "Your move: beat the cards or take them")
        if view["taking"]:  # the button says «Пас», not «Бито»
            return pgettext("table", "Your move: throw in or say you have nothing to add")
        return pgettext("table", "Your move: throw in or say you are done")
    if waiting_for:
        return pgettext("table", "Waiting for %(names)s") % {"names": ", ".join(waiting_for)}
    return ""


def _result(result: dict, game: dict, names: dict, rules: dict, addresses: dict | None = None) -> dict:
    """The result panel: the places that count, as `_finish` stored them
    (`GameSeat.counted_place`, by `counted_places`: a seat that left the game is last,
    below everyone who played on), with the place its cards reached when that differs."""
    abandoned = {s["number"] for s in game["seats"] if s.get("abandoned")}
    played = {int(s): p for s, p in (result.get("places") or {}).items()}
    stored = {s["number"]: s.get("counted_place") for s in game["seats"]}
    losers = result.get("losers") or []
    addresses = addresses or {}
    rows = [
        {
            **row,
            "name": names.get(row["seat"], "?"),
            "is_loser": row["seat"] in losers or row["abandoned"],
            "left_label": wording.said_of(wording.LEFT_COUNTED_LAST, addresses.get(row["seat"])),
        }
        for row in result_places(played, stored, abandoned, rules.get("players") or len(names))
    ]
    return {
        "places": rows,
        # A draw with a leaver is none for him: he counts as last, the others finished level.
        "draw": bool(result.get("draw")) and not abandoned,
        "level_but_left": bool(result.get("draw")) and bool(abandoned),
        "durak": names.get(result["durak"]) if result.get("durak") is not None else None,
        "losers": [names.get(s, "?") for s in losers],
        "left": [names.get(s, "?") for s in sorted(abandoned)],
        "left_line": wording.left_and_last((names.get(s, "?"), addresses.get(s)) for s in sorted(abandoned)),
        "pair": len(losers) > 1,
    }


def _resign_counts(rules: dict, rated: bool) -> str:
    """What the resign dialog promises: exactly what `do_resign` and `_finish` will do."""
    last = rules.get("players") or 2
    if return_counts_normally(rated):
        return pgettext(
            "table",
            "Leave the game? A bot plays your cards to the end and you count as last (place %(last)s of "
            "%(last)s), unless you come back with “I'm back” before the end.",
        ) % {"last": last}
    return pgettext(
        "table",
        "Leave the game? A bot plays your cards to the end and you count as last (place %(last)s of %(last)s), "
        "even if you come back: this table is rated.",
    ) % {"last": last}


def record_urls(game_id: int) -> dict:
    """A finished game's record, replay and verification pages."""
    try:
        record = reverse("games:game-record", args=[game_id])
        return {"record": record, "replay": record + "#replay", "verify": reverse("games:game-verify", args=[game_id])}
    except NoReverseMatch:
        return {}


def _seating(snapshot: dict, viewer_id, is_host: bool, spectators: dict | None = None) -> dict:
    """The seats before a deal (and between games), with what the viewer may do
    (`spectators`: the spectator's seating of the same snapshot, whose names it reuses)."""
    table = snapshot["table"]
    game = snapshot.get("game")
    seated = viewer_id is not None and any(s.get("user_id") == viewer_id for s in snapshot["seats"])
    # A tournament round's seats are fixed: nobody joins, leaves or seats a bot there.
    fixed = bool(table.get("managed_by_event"))
    open_table = table["status"] in ("waiting", "finished") and not fixed
    # After a game the next one needs every person seated to agree ("play again").
    between_games = game is not None and open_table
    agreed = between_games and any(s.get("user_id") == viewer_id and s.get("ready") for s in snapshot["seats"])
    seats = []
    known = {seat["number"]: seat for seat in spectators["seats"]} if spectators else {}
    for s in snapshot["seats"]:
        empty = not s.get("user_id") and not s.get("bot_level")
        same = known.get(s["number"])
        seats.append(
            {
                "number": s["number"],
                "label": s["number"] + 1,
                "name": same["name"] if same else _seat_name(s, s["number"]) if not empty else "",
                "user_id": s.get("user_id"),  # (ratings next to names)
                "is_me": viewer_id is not None and s.get("user_id") == viewer_id,
                "is_bot": bool(s.get("bot_level")) and not s.get("user_id"),
                "bot_label": same["bot_label"]
                if same
                else display.bot_label(s["bot_level"])
                if s.get("bot_level")
                else "",
                "empty": empty,
                "ready": between_games and bool(s.get("user_id")) and bool(s.get("ready")),
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
        "can_leave": seated and not playing and not fixed,
        "can_resign": playing
        and viewer_id is not None
        and any(s.get("user_id") == viewer_id and not s.get("autopilot") for s in game["seats"]),
        "can_start": open_table
        and seated
        and table.get("rematch", True)
        and (is_host or game is not None)
        and not agreed,
        "play_again": game is not None,
        "agreed": agreed,
        "free_seats": sum(1 for s in seats if s["empty"]),
        "closed": table["status"] == "closed",
    }
