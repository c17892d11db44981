"""Words and pictures for the pages: variant and bot names, rule summaries,
cards, move texts, and the translation of the English reasons that the engine
and the services give when they refuse something.

Pure helpers (no database): the lobby, the accounts and the records pages use
them, and so may the table page.
"""

import re

from django.utils.translation import gettext, gettext_lazy as _, gettext_noop

from games import bots, engine
from games.engine.cards import RED_SUITS, SUIT_SYMBOLS

VARIANT_NAMES = {
    "podkidnoy": _("Podkidnoy"),
    "perevodnoy": _("Perevodnoy"),
}

# The bot registry names its levels in English; these are their translations.
BOT_LEVEL_NAMES = {
    "random": _("Novice (random)"),
    "heuristic": _("Club player"),
}


def variant_name(variant: str) -> str:
    return str(VARIANT_NAMES.get(variant, variant))


def bot_name(level: str) -> str:
    name = BOT_LEVEL_NAMES.get(level) or bots.BOT_NAMES.get(level, level)
    return gettext("Bot: %(level)s") % {"level": name}


def bot_level_choices() -> list[tuple[str, str]]:
    return [(level, str(BOT_LEVEL_NAMES.get(level, name))) for level, name in bots.BOT_LEVELS]


def timer_text(seconds) -> str:
    if not seconds:
        return gettext("no timer")
    return gettext("%(seconds)s s per move") % {"seconds": seconds}


def rules_summary(rules: dict) -> list[str]:
    """The options of a table in a few words each (house rules left out)."""
    parts = [gettext("%(deck)s cards") % {"deck": rules.get("deck", 36)}]
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


def card(code: str | None) -> dict | None:
    """A card as the templates draw it: rank, suit symbol, red or black."""
    if not code:
        return None
    suit = code[-1]
    return {"code": code, "rank": code[:-1], "suit": SUIT_SYMBOLS[suit], "red": suit in RED_SUITS}


def card_text(code: str) -> str:
    return code[:-1] + SUIT_SYMBOLS[code[-1]]


def action_text(action: str) -> str:
    """'defend 6S with 7S' -> 'covers 6♠ with 7♠' (translated)."""
    try:
        parsed = engine.parse_action(action)
    except engine.IllegalAction:
        return action
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


# ------------------------------------------------- refusals in the user's language

# Exact English reasons of games.services (tables.py, play.py) and of the rules
# engine; marked here so that makemessages keeps their translations.
KNOWN_REASONS = (
    gettext_noop("The turn timer is none, 15, 30 or 60 seconds."),
    gettext_noop("Rated tables are for people only: no bots."),
    gettext_noop("Rated play needs an account: sign up first."),
    gettext_noop("The game at this table has already started."),
    gettext_noop("You already sit at this table."),
    gettext_noop("That seat is taken."),
    gettext_noop("The table is full."),
    gettext_noop("You do not sit at this table."),
    gettext_noop("The game is on: resign to leave it."),
    gettext_noop("Only the host seats bots."),
    gettext_noop("The game is on."),
    gettext_noop("That seat is not free."),
    gettext_noop("The game is already on."),
    gettext_noop("This table is closed."),
    gettext_noop("Only the host starts the game."),
    gettext_noop("Every seat needs a player or a bot before the deal."),
    gettext_noop("There is no such table."),
    gettext_noop("Sign in to play."),
    gettext_noop("You are not playing in this game."),
    gettext_noop("That seat is not yours."),
    gettext_noop("Your seat is on autopilot after repeated timeouts."),
    gettext_noop("There is no such game."),
    gettext_noop("The game is over."),
    gettext_noop("Transfer by showing a trump exists only in perevodnoy."),
)

# Reasons with numbers or names in them: (pattern of the English text, translatable template).
PATTERNS = (
    (re.compile(r"^Team play needs 4 players \(two pairs\) or 6 \(two teams of three\), not (?P<players>\d+)\.$"),
     _("Team play needs 4 players (two pairs) or 6 (two teams of three), not %(players)s.")),
    (re.compile(r"^A (?P<deck>\d+)-card deck seats (?P<low>\d+) to (?P<high>\d+) players, not (?P<players>\d+)\.$"),
     _("A %(deck)s-card deck seats %(low)s to %(high)s players, not %(players)s.")),
    (re.compile(r"^The trump six swap needs sixes, which a (?P<deck>\d+)-card deck lacks\.$"),
     _("The trump six swap needs sixes, which a %(deck)s-card deck lacks.")),
    (re.compile(r"^Durak is played by 2 to 6 players, not (?P<players>.+)\.$"),
     _("Durak is played by 2 to 6 players, not %(players)s.")),
    (re.compile(r"^Unknown bot level (?P<level>.+)\.$"),
     _("Unknown bot level %(level)s.")),
)


def reason_text(reason: str) -> str:
    """A refusal of the engine or the services in the active language."""
    reason = str(reason)
    for pattern, template in PATTERNS:
        match = pattern.match(reason)
        if match:
            return str(template) % match.groupdict()
    return gettext(reason)
