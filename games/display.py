"""Words and pictures of the pages, one copy each: variant and bot names, rule
summaries, timers, cards, move texts, outcomes (the engine's rule errors: games.errors).

Pure helpers (no database, no request): the lobby, the table, the records and
the accounts pages all use these, so a word is translated in one place.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext, pgettext_lazy

from games import bots, engine
from games.choices import Variant
from games.engine import RED_SUITS, SUIT_SYMBOLS
from games.errors import rule_error_text as rule_error_text  # the new-table form's import

VARIANT_NAMES = dict(Variant.choices)

# The bot registry (games.bots.BOT_LEVELS) names its levels in English for
# code; these are the names people read. tests/test_display.py checks that
# every level of the registry has one.
BOT_LABELS = {
    "easy": pgettext_lazy("bot level", "Easy"),
    "medium": pgettext_lazy("bot level", "Medium"),
    "hard": pgettext_lazy("bot level", "Strong"),
    "expert": pgettext_lazy("bot level", "Expert"),
}
# The first levels' names, still on old tables and accepted everywhere (games.bots.LEGACY_LEVELS).
LEGACY_BOT_LABELS = {
    "random": pgettext_lazy("bot level", "Novice"),
    "heuristic": pgettext_lazy("bot level", "Medium"),
}


def variant_name(variant: str) -> str:
    return str(VARIANT_NAMES.get(variant, variant))


def bot_label(level: str) -> str:
    """The level's name: "Medium"."""
    if level in BOT_LABELS:
        return str(BOT_LABELS[level])
    if level in LEGACY_BOT_LABELS:
        return str(LEGACY_BOT_LABELS[level])
    return bots.BOT_NAMES.get(level, level)


def seat_player_name(name: str, bot_level: str, number: int) -> str:
    """A seat's player as every page names him: his name, or "Bot 2" (seats count from 1)."""
    if name:
        return player_name(name)
    if bot_level:
        return pgettext("table", "Bot %(n)s") % {"n": number + 1}
    return pgettext("table", "Seat %(n)s") % {"n": number + 1}


def default_bot_level() -> str:
    """The level a form offers first: the club player (the guest's quick game, a table's bots)."""
    levels = [level for level, _name in bots.BOT_LEVELS]
    canonical = getattr(bots, "canonical_level", lambda level: level)("heuristic")
    return canonical if canonical in levels else levels[0]


def bot_choices() -> list[tuple[str, str]]:
    """(level, name) of every bot level, weakest first."""
    return [(level, bot_label(level)) for level, _name in bots.BOT_LEVELS]


def timer_text(seconds) -> str:
    if not seconds:
        return gettext("no timer")
    return gettext("%(seconds)s s per move") % {"seconds": seconds}


def rules_summary(rules: dict) -> list[str]:
    """The options of a table in a few words each (the variant and players said apart)."""
    deck = rules.get("deck", 36)
    parts = [ngettext("%(deck)s card", "%(deck)s cards", deck) % {"deck": deck}]
    if rules.get("partners"):
        parts.append(gettext("two pairs") if rules.get("players") == 4 else gettext("two teams of three"))
    if rules.get("first_bout_limit", 5) == 6:
        parts.append(gettext("6 cards in the first bout"))
    else:
        parts.append(gettext("5 cards in the first bout"))
    if rules.get("throw_in") == "neighbours":
        parts.append(gettext("neighbours throw in"))
    else:
        parts.append(gettext("everybody throws in"))
    if rules.get("trump_show_transfer"):
        parts.append(gettext("transfer by showing a trump"))
    if rules.get("trump_six_swap"):
        parts.append(gettext("trump six swap"))
    return parts


def players_text(players: int) -> str:
    return ngettext("%(players)s player", "%(players)s players", players) % {"players": players}


# ------------------------------------------------------------------ cards


def suit(code: str) -> dict:
    """A suit as the templates draw it: its letter, symbol and colour."""
    return {"suit": code, "symbol": SUIT_SYMBOLS[code], "is_red": code in RED_SUITS}


def card(code: str | None, trump: str | None = None) -> dict | None:
    """A card as the templates draw it (None for no card)."""
    if not code:
        return None
    letter = code[-1]
    return {
        "code": code,
        "rank": code[:-1],
        "suit": letter,
        "symbol": SUIT_SYMBOLS[letter],
        "is_red": letter in RED_SUITS,
        "is_trump": letter == trump,
    }


def card_text(code: str) -> str:
    return code[:-1] + SUIT_SYMBOLS[code[-1]]


def action_text(action: str, defender_takes: bool | None = None) -> str:
    """'defend 6S with 7S' -> 'covers 6♠ with 7♠' (translated).

    A pass reads as the table's button said it: «Пас» after the defender took,
    «Бито» while every card was covered (`defender_takes`; None when unknown)."""
    try:
        parsed = engine.parse_action(action)
    except engine.IllegalAction:
        return action
    if parsed.kind == "pass" and defender_takes is not None:
        return gettext("passes: nothing to add") if defender_takes else gettext("says the cards are beaten")
    texts = {
        "attack": gettext("plays %(card)s"),
        "defend": gettext("covers %(target)s with %(card)s"),
        "transfer": gettext("transfers with %(card)s"),
        "show": gettext("shows the trump %(card)s to transfer"),
        "swap": gettext("swaps %(card)s for the trump card"),
        "take": gettext("takes the cards"),
        "pass": gettext("passes (done)"),
    }
    return texts[parsed.kind] % {
        "card": card_text(parsed.card) if parsed.card else "",
        "target": card_text(parsed.target) if parsed.target else "",
    }


# ------------------------------------------------------------------ outcomes

OUTCOME_WORDS = {
    "draw": gettext_lazy("draw"),
    "durak": gettext_lazy("durak"),
    "lost": gettext_lazy("lost (losing side)"),
    "won": gettext_lazy("won"),
    "left": gettext_lazy("left the game: counted as last"),
}


def outcome(result: dict | None, seat: int, is_loser: bool, abandoned: bool = False) -> tuple[str, str]:
    """How a finished game went for a seat, as it counts: (css class, words).

    A seat that left the game (resigned, or three timeouts) counts as last, whatever
    place the autopilot reached: the result panel, the record and the profile all say so.
    """
    result = result or {}
    if abandoned:
        kind = "left"
    elif result.get("draw"):
        kind = "draw"
    elif result.get("durak") == seat:
        kind = "durak"
    elif is_loser:
        kind = "lost"
    else:
        kind = "won"
    return kind, str(OUTCOME_WORDS[kind])


GUEST_NAME_RE = re.compile(r"^(?:guest|гость)-(\d+)$", re.IGNORECASE)


def player_name(name: str) -> str:
    """A player's name as the active language shows it: a guest ("Гость-1234" or
    "Guest-1234", a pattern sign-up refuses, so only guests have it) gets the
    language's own word; every other name is shown as it is."""
    match = GUEST_NAME_RE.match(name or "")
    if match is None:
        return name
    return pgettext("guest name", "Guest-%(number)s") % {"number": match.group(1)}
