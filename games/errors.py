"""Refusals: the one exception type for "the server will not do that".

A refusal changes nothing and tells the person why, in his language. Its
message is marked for translation (`gettext_lazy`) and becomes text only when
shown: `str(refusal)` is the message in the active language. Numbers and names
go in as keyword arguments, so the translated template gets them:

    raise TableRefused(_("The table has %(seats)s seats, not %(users)s."), seats=4, users=5)

Apps raise their own subclasses (a table, a chat, a tournament ...), so a view
may catch one kind or all of them (`except Refusal`).

The engine refuses in English with a stable code (`IllegalAction.code`); the
web shows the text of `ENGINE_REFUSALS[code]` instead (`from_engine`), the one
table of their translations. Its `Rules` raise ValueError with an English text
and no code; `rule_error_text` is the one table of those (the new-table form and
an event's setup both show them).
"""

from __future__ import annotations

import re

from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from games.engine import SUIT_SYMBOLS


def _interpolate(message, params: dict) -> str:
    return str(message % params)  # (an `ngettext_lazy` message picks its plural from params)


_lazy_interpolate = lazy(_interpolate, str)


class Refusal(Exception):
    """Something the server will not do; `str(refusal)` says why in the active language.

    `message`: a lazily translated text (`gettext_lazy`), a %-template when
    `params` are given. `code`: a stable id for code that needs to tell refusals
    apart (the engine's codes for refused moves), else "".
    """

    def __init__(self, message, *, code: str = "", **params):
        self.message = _lazy_interpolate(message, params) if params else message
        self.code = code
        super().__init__(self.message)

    def __str__(self) -> str:
        return str(self.message)

    @property
    def reason(self) -> str:
        """The message in the active language (the name the services used before)."""
        return str(self.message)


class MoveRefused(Refusal):
    """A move or a game's action the server will not make."""


class TableRefused(Refusal):
    """A table operation (open, join, leave, bots, deal) the server will not do."""


class ChatRefused(Refusal):
    """A chat message the server will not post."""


# The engine's refusals (games.engine.REFUSALS: code -> English), in the
# web's languages: the one table of their translations. Cards are shown as on
# the table (6♠), seats counted from 1 as the table counts them.
ENGINE_REFUSALS = {
    "action_not_text": _("An action is a text such as “attack 6S”."),
    "malformed_action": _(
        "Malformed action %(action)s: expected “attack <card>”, “defend <card> with <card>”, "
        "“transfer <card>”, “take” or “pass” (cards like 6S, 10H, QD, AC)."
    ),
    "game_over": _("The game is over."),
    "no_such_seat": _("There is no seat %(seat)s at this table."),
    "left_game": _("You have left the game: you have no more moves."),
    "card_not_held": _("You do not hold %(card)s."),
    "not_the_opener": _("Only the attacker (seat %(attacker)s) plays the first card of a bout."),
    "defender_throws_in": _("The defender cannot throw in to himself."),
    "partner_throws_in": _("You cannot throw in to your own partner."),
    "not_a_neighbour": _("Only the attacker and his neighbours throw in at this table."),
    "passed_until_next_card": _("You have passed: you may add nothing until another card reaches the table."),
    "rank_not_on_table": _("%(card)s cannot be thrown in: no card of its rank is on the table."),
    "bout_limit": ngettext_lazy(
        "This bout already has %(count)s attack card, the most allowed.",
        "This bout already has %(count)s attack cards, the most allowed.",
        "count",
    ),
    "first_bout_limit": ngettext_lazy(
        "This bout already has %(count)s attack card, the most allowed in the first bout.",
        "This bout already has %(count)s attack cards, the most allowed in the first bout.",
        "count",
    ),
    "hand_limit": ngettext_lazy(
        "The defender holds %(count)s card: there may not be more uncovered cards than that.",
        "The defender holds %(count)s cards: there may not be more uncovered cards than that.",
        "count",
    ),
    "bout_not_started": _("The bout has not started: the attacker must play a card."),
    "defender_passes": _("The defender does not pass: beat the cards or take them."),
    "not_a_thrower": _("You are not throwing in to this bout."),
    "already_passed": _("You have already passed."),
    "pass_while_uncovered": _("You may pass only when every card is covered or the defender has taken."),
    "only_defender_defends": _("Only the defender (seat %(defender)s) may beat the cards."),
    "only_defender_transfers": _("Only the defender (seat %(defender)s) may transfer."),
    "only_defender_shows": _("Only the defender (seat %(defender)s) may show a trump to transfer."),
    "only_defender_takes": _("Only the defender (seat %(defender)s) may take the cards."),
    "table_empty": _("There is nothing on the table yet."),
    "already_taking": _("You have already said you take the cards."),
    "all_covered": _("Every card is covered: wait for a throw-in or the end of the bout."),
    "not_uncovered": _("%(target)s is not an uncovered card on the table."),
    "does_not_beat": _("%(card)s does not beat %(target)s."),
    "no_transfers": _("Transfers exist only in perevodnoy."),
    "show_not_played": _("A trump cannot be shown instead of played to transfer at this table."),
    "transfer_too_late": _("You have already beaten a card: it is too late to transfer."),
    "transfer_wrong_rank": _("%(card)s does not match the rank of the attack cards."),
    "nobody_to_transfer_to": _("Nobody is left to pass the attack to: beat the cards or take them."),
    "transfer_bout_limit": ngettext_lazy(
        "A transfer would make %(count)s attack card, more than this bout allows.",
        "A transfer would make %(count)s attack cards, more than this bout allows.",
        "count",
    ),
    "receiver_short": ngettext_lazy(
        "Seat %(receiver)s holds only %(held)s card, fewer than the attack cards a transfer would give (%(count)s).",
        "Seat %(receiver)s holds only %(held)s cards, fewer than the attack cards a transfer would give (%(count)s).",
        "held",
    ),
    "show_not_trump": _("Only a trump can be shown to transfer; %(card)s is not a trump."),
    "already_shown": _("%(card)s has already been shown in this bout."),
    "no_trump_six_swap": _("The trump six swap is not played at this table."),
    "swap_not_trump_six": _("Only the trump six can be swapped for the face-up trump, not %(card)s."),
    "swap_too_late": _("The stock has been touched: it is too late to swap the trump six."),
}
UNKNOWN_ENGINE_REFUSAL = _("The rules do not allow that move now.")

_SEAT_PARAMS = ("seat", "attacker", "defender", "receiver")
_CARD_PARAMS = ("card", "target")


def _shown(name: str, value):
    if name in _SEAT_PARAMS and isinstance(value, int) and not isinstance(value, bool):
        return value + 1
    if name in _CARD_PARAMS and isinstance(value, str) and value[-1:] in SUIT_SYMBOLS:
        return value[:-1] + SUIT_SYMBOLS[value[-1]]
    return value


def from_engine(error, cls: type[Refusal] = MoveRefused) -> Refusal:
    """The refusal to show for an engine `IllegalAction`, translated by its code."""
    code = getattr(error, "code", "") or ""
    message = ENGINE_REFUSALS.get(code)
    if message is None:
        return cls(UNKNOWN_ENGINE_REFUSAL, code=code)
    params = {name: _shown(name, value) for name, value in (getattr(error, "params", None) or {}).items()}
    return cls(message, code=code, **params)


# ------------------------------------------- rule errors in the user's language

# The ValueError texts of `games.engine.Rules` a form or an event's setup can meet:
# exact texts, then texts with values in them (an English pattern and its template).
KNOWN_RULE_ERRORS = {
    "Transfer by showing a trump exists only in perevodnoy.": _(
        "Transfer by showing a trump exists only in perevodnoy."
    ),
    "The number of players must be a whole number from 2 to 6.": _(
        "The number of players must be a whole number from 2 to 6."
    ),
}

RULE_ERROR_PATTERNS = (
    (
        re.compile(r"^A (?P<deck>\d+)-card deck seats (?P<low>\d+) to (?P<high>\d+) players, not (?P<players>\d+)\.$"),
        _("A %(deck)s-card deck seats %(low)s to %(high)s players, not %(players)s."),
    ),
    (
        re.compile(r"^Team play needs 4 players \(two pairs\) or 6 \(two teams of three\), not (?P<players>\d+)\.$"),
        _("Team play needs 4 players (two pairs) or 6 (two teams of three), not %(players)s."),
    ),
    (
        re.compile(r"^The trump six swap needs sixes, which a (?P<deck>\d+)-card deck lacks\.$"),
        _("The trump six swap needs sixes, which a %(deck)s-card deck lacks."),
    ),
    (
        re.compile(r"^Durak is played by 2 to 6 players, not (?P<players>.+)\.$"),
        _("Durak is played by 2 to 6 players, not %(players)s."),
    ),
    (
        re.compile(r"^A deck has 24, 36 or 52 cards, not (?P<deck>.+)\.$"),
        _("A deck has 24, 36 or 52 cards, not %(deck)s."),
    ),
    (
        re.compile(r"^The first bout allows 5 or 6 attack cards, not (?P<limit>.+)\.$"),
        _("The first bout allows 5 or 6 attack cards, not %(limit)s."),
    ),
    (
        re.compile(r"^Throw-in is by 'all' players or by the 'neighbours' only, not (?P<value>.+)\.$"),
        _("Throw-in is by all players or by the opener's neighbours only, not %(value)s."),
    ),
    (
        re.compile(r"^Unknown variant (?P<variant>.+): choose 'podkidnoy' or 'perevodnoy'\.$"),
        _("Unknown variant %(variant)s: choose podkidnoy or perevodnoy."),
    ),
    (
        re.compile(r"^Unknown rule option\(s\): (?P<names>.+)\.$"),
        _("Unknown rule options: %(names)s."),
    ),
)


def rule_error_text(message) -> str:
    """An engine `Rules` error in the active language (an unknown one as the engine words it)."""
    message = str(message)
    if message in KNOWN_RULE_ERRORS:
        return str(KNOWN_RULE_ERRORS[message])
    for pattern, template in RULE_ERROR_PATTERNS:
        match = pattern.match(message)
        if match:
            return str(template) % match.groupdict()
    return message


rule_error_lazy = lazy(rule_error_text, str)  # translated when shown, in the language of that moment
