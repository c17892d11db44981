"""The engine's rule errors in the director's language.

`games.engine.Rules` stays pure and English: it raises ValueError with an English
text. An event's setup meets those errors at the Django boundary (validate_event),
where each known text becomes a translated message: exact texts first, then texts
with values in them (an English pattern and its translatable template). A text not
known here is shown as the engine words it.
"""

from __future__ import annotations

import re

from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _

KNOWN = {
    "Transfer by showing a trump exists only in perevodnoy.": _(
        "Transfer by showing a trump exists only in perevodnoy."
    ),
    "The number of players must be a whole number from 2 to 6.": _(
        "The number of players must be a whole number from 2 to 6."
    ),
}

PATTERNS = (
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
    if message in KNOWN:
        return str(KNOWN[message])
    for pattern, template in PATTERNS:
        match = pattern.match(message)
        if match:
            return str(template) % match.groupdict()
    return message


rule_error_lazy = lazy(rule_error_text, str)  # translated when shown, in the language of that moment
