"""The table's log: engine events, redacted for one viewer, as translated HTML lines."""

from __future__ import annotations

import json
from functools import lru_cache

from django.template.loader import render_to_string
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, npgettext, pgettext, pgettext_lazy

from games import display, engine, wording

LOG_LIMIT = 30  # log lines a table shows


def card_html(code: str) -> str:
    """The small inline card of log lines (state.html#mini, as on the buttons and the known cards)."""
    return mark_safe(render_to_string("games/table/partials/state.html#mini", {"c": display.card(code)}))


def _names_html(numbers, names) -> str:
    return format_html_join(", ", "<b>{}</b>", ((names.get(n, "?"),) for n in numbers))


def _people_key(names: dict, addresses: dict | None) -> tuple:
    """Seat, name and address (games.wording) of each seat: what a line's words depend on."""
    addresses = addresses or {}
    return tuple(sorted((n, str(name), wording.address_of(addresses.get(n))) for n, name in names.items()))


def log_line(event: dict, names: dict[int, str], addresses: dict[int, str] | None = None) -> str:
    """One event, already redacted for the viewer, as a translated HTML line.
    `addresses`: how each seat's player asked to be spoken of (Profile.address)."""
    key = json.dumps(event, sort_keys=True, default=str)
    return _log_line(get_language(), key, _people_key(names, addresses))


@lru_cache(maxsize=4096)
def _log_line(language: str, event_json: str, people: tuple) -> str:
    return _format_log_line(json.loads(event_json), people)


def _format_log_line(event: dict, people: tuple) -> str:
    kind = event.get("type")
    names = {n: name for n, name, _address in people}
    addresses = {n: address for n, _name, address in people}

    def who(key="seat"):
        return format_html("<b>{}</b>", names.get(event.get(key), "?"))

    def whom(key, case):
        """The seat's name in `case`, or None where it cannot be declined (a guest, a bot, a Latin name)."""
        number = event.get(key)
        declined = wording.name_in(names[number], case, addresses[number]) if number in names else None
        return format_html("<b>{}</b>", declined) if declined else None

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
        other = whom("defender", wording.ACCUSATIVE)
        if other:
            # Translators: {other} is in the accusative case («на Анну»).
            text = pgettext("table", "{name} transfers with {card} to {other}")
        else:
            text, other = pgettext("table", "{name} transfers with {card}; {other} defends now"), who("defender")
        return format_html(text, name=who(), card=card_html(event["card"]), other=other)
    if kind == "show":
        other = whom("defender", wording.ACCUSATIVE)
        if other:
            # Translators: {other} is in the accusative case («на Анну»).
            text = pgettext("table", "{name} shows {card} and transfers to {other}")
        else:
            text, other = pgettext("table", "{name} shows {card} and transfers; {other} defends now"), who("defender")
        return format_html(text, name=who(), card=card_html(event["card"]), other=other)
    if kind == "take":
        return format_html(pgettext("table", "{name} takes the cards"), name=who())
    if kind == "pass":
        if event.get("defender_takes"):  # the button said «Пас»
            return format_html(pgettext("table", "{name} has nothing to add"), name=who())
        return format_html(pgettext("table", "{name}: beaten, done"), name=who())  # the button said «Бито»
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
        other = whom("defender", wording.INSTRUMENTAL)
        if other:
            # Translators: {other} is in the instrumental case («ходит под Анной»).
            text = pgettext("table", "New bout: {name} attacks {other}")
        else:
            text, other = pgettext("table", "New bout: {name} attacks, {other} defends"), who("defender")
        return format_html(text, name=who("attacker"), other=other)
    if kind == "draw":
        if "cards" in event:
            return format_html(pgettext("table", "{name} draws {cards}"), name=who(), cards=cards(event["cards"]))
        count = event.get("count", 0)
        return format_html(
            npgettext(
                "table", "{name} draws {count} card from the stock", "{name} draws {count} cards from the stock", count
            ),
            name=who(),
            count=count,
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
    if kind == "timeout":  # (games.positions.timeout_event: the next line says what was played)
        return format_html(pgettext("table", "{name}: time ran out, the move was made for this seat"), name=who())
    if kind == "deal":
        return format_html("{}", pgettext("table", "The cards are dealt"))
    return ""


# Why a game ended off the cards (Game.result["ended"]["reason"]: games.services.claim,
# games.services.adjudication), as the log's closing line says it.
ENDED_LINES = {
    "claimed": pgettext_lazy("table", "The game was stopped: a win claimed over a player who left the table"),
    "forfeit": pgettext_lazy("table", "The game was stopped: forfeited by a player who did not come"),
    "adjudicated": pgettext_lazy("table", "The game was stopped: the director set the places"),
}


def closing_lines(result: dict, names: dict, addresses: dict | None = None) -> list[str]:
    """The log's last lines of a game ended off the cards (the engine saw no end):
    why it stopped, then who lost, as the engine's own "game over" line says it."""
    reason = (result.get("ended") or {}).get("reason")
    lines = [format_html("{}", ENDED_LINES[reason])] if reason in ENDED_LINES else []
    over = {"type": "game_over", "draw": result.get("draw"), "durak": result.get("durak")}
    over["losers"] = result.get("losers") or []
    return lines + [log_line(over, names, addresses)]


def log_lines(
    events, viewer_seat: int | None, names: dict, memo: dict | None, addresses: dict | None = None
) -> list[str]:
    """The events' log lines, each redacted for the viewer (`engine.event_for`).

    `memo` (optional, owned by the caller, e.g. one websocket consumer) keeps the
    line of each event object it has already formatted for this viewer, language
    and names, so a live table formats only the new events of each update.
    """
    language, names_key = get_language(), _people_key(names, addresses)
    # The memo's lines hold for one viewer, language and names: another starts it afresh.
    viewer_key = (viewer_seat, language, names_key)
    if memo is not None and memo.get("for") != viewer_key:
        memo.clear()
        memo["for"] = viewer_key
    known = memo.get("lines") or {} if memo is not None else {}
    fresh = {}
    lines = []
    defender_takes = False  # within a bout, after "take" a pass is «Пас», before it «Бито»
    for event in events:
        kind = event.get("type")
        if kind == "take":
            defender_takes = True
        elif kind in ("bout_end", "bout_start", "deal"):
            defender_takes = False
        hit = known.get(id(event))
        # (the entry holds the event itself, so its id cannot have been reused)
        if hit is not None and hit[0] is event:
            line = hit[1]
        else:
            redacted = engine.event_for(event, viewer_seat)
            if kind == "pass" and redacted and defender_takes:
                redacted = {**redacted, "defender_takes": True}
            line = _log_line(language, json.dumps(redacted, sort_keys=True, default=str), names_key)
        fresh[id(event)] = (event, line)
        if line:
            lines.append(line)
    if memo is not None:
        memo["lines"] = fresh
    return lines
