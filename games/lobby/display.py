"""Words and pictures for the pages: variant and bot names, rule summaries,
cards, move texts, and the translation of the rules engine's English errors.

Pure helpers (no database): the lobby, the accounts and the records pages use
them, and so may the table page.
"""

import re

from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

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


# ------------------------------------------- rule errors in the user's language

# games.services translate their refusals themselves; the engine's Rules speaks
# English only. These are its ValueError messages the new-table form can meet:
# exact texts, then texts with numbers in them (English pattern, translatable template).
KNOWN_REASONS = (gettext_noop("Transfer by showing a trump exists only in perevodnoy."),)

PATTERNS = (
    (
        re.compile(r"^Team play needs 4 players \(two pairs\) or 6 \(two teams of three\), not (?P<players>\d+)\.$"),
        _("Team play needs 4 players (two pairs) or 6 (two teams of three), not %(players)s."),
    ),
    (
        re.compile(r"^A (?P<deck>\d+)-card deck seats (?P<low>\d+) to (?P<high>\d+) players, not (?P<players>\d+)\.$"),
        _("A %(deck)s-card deck seats %(low)s to %(high)s players, not %(players)s."),
    ),
    (
        re.compile(r"^The trump six swap needs sixes, which a (?P<deck>\d+)-card deck lacks\.$"),
        _("The trump six swap needs sixes, which a %(deck)s-card deck lacks."),
    ),
    (
        re.compile(r"^Durak is played by 2 to 6 players, not (?P<players>.+)\.$"),
        _("Durak is played by 2 to 6 players, not %(players)s."),
    ),
)


def reason_text(reason: str) -> str:
    """A refusal in the active language: engine rule errors are translated here;
    anything else (the services' reasons, already translated) passes through."""
    reason = str(reason)
    for pattern, template in PATTERNS:
        match = pattern.match(reason)
        if match:
            return str(template) % match.groupdict()
    if reason in KNOWN_REASONS:
        return gettext(reason)
    return reason
