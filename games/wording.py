"""Russian that agrees: a name in the case its sentence needs, a verb in the player's gender.

The one place the site declines. Message makers (the table's log and result, presence
badges, the friends list, the profile) ask here for a name in a case and for the phrase
that fits a player's address (`Profile.address`: he, she, or none chosen); every phrase is
still a translated string, so English reads as before.

Names are declined by pymorphy3 (docs/wording.md says why not pytrovich): only a single
Cyrillic word its dictionary knows as a first name (grammeme `Name`) of a gender that fits
the player. Everything else (guests «Гость-8357», bots «Бот 2», Latin names, nicknames)
is None, and the caller falls back to a phrasing that needs no case.

Pure: no Django but gettext (the active language decides whether to decline at all).
"""

from __future__ import annotations

import re
from functools import lru_cache

from django.utils.translation import get_language, pgettext, pgettext_lazy

HE, SHE, NEUTRAL = "he", "she", ""
ADDRESSES = (HE, SHE, NEUTRAL)

# pymorphy3's grammemes of the cases a message may ask for.
GENITIVE, DATIVE, ACCUSATIVE, INSTRUMENTAL, PREPOSITIONAL = "gent", "datv", "accs", "ablt", "loct"
CASES = frozenset({GENITIVE, DATIVE, ACCUSATIVE, INSTRUMENTAL, PREPOSITIONAL})

_ONE_WORD = re.compile(r"^[А-ЯЁа-яё]+$")
# A name's dictionary gender that fits a player's address ("ms-f": Саша, Женя fit both).
# A woman's masculine consonant name («Ким») is not declined in Russian: no fit, no case.
_FITS = {HE: {"masc", "ms-f"}, SHE: {"femn", "ms-f"}, NEUTRAL: {"masc", "femn", "ms-f"}}


def speaks_russian() -> bool:
    return (get_language() or "").split("-")[0] == "ru"


def address_of(value) -> str:
    """A stored address as one of ADDRESSES (anything else: none chosen)."""
    return value if value in ADDRESSES else NEUTRAL


@lru_cache(maxsize=1)
def _analyzer():
    import pymorphy3  # its dictionaries load once, on the first name declined

    return pymorphy3.MorphAnalyzer()


def _gender(tag) -> str:
    return "ms-f" if "ms-f" in tag else (tag.gender or "")


def _like(original: str, word: str) -> str:
    """`word` (pymorphy3 answers in lower case) in the letter case of `original`."""
    if original.isupper() and len(original) > 1:
        return word.upper()
    if original[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


@lru_cache(maxsize=4096)
def _declined(name: str, case: str, address: str) -> str | None:
    if case not in CASES or not _ONE_WORD.match(name):
        return None
    fits = _FITS[address_of(address)]
    for parse in _analyzer().parse(name):
        tag = parse.tag
        if "Name" not in tag or "sing" not in tag or "nomn" not in tag or _gender(tag) not in fits:
            continue
        form = parse.inflect({case})
        return _like(name, form.word) if form is not None else None
    return None


def name_in(name: str, case: str, address: str = NEUTRAL) -> str | None:
    """`name` in grammatical `case` («Анна», instrumental: «Анной»), or None when it cannot
    be declined (then the caller says it another way). In a language without cases the
    name itself."""
    if not speaks_russian():
        return str(name)
    return _declined(str(name), case, address_of(address))


def by_address(address: str, *, he, she, neutral) -> str:
    """The phrase of three (each a translated string) that fits the player's address."""
    return str({HE: he, SHE: she}.get(address_of(address), neutral))


# Phrases said of one player, in his gender. The English is the same for all three;
# the context tells the Russian translation which form it is.
LEFT_COUNTED_LAST = {
    HE: pgettext_lazy("table: he", "left the game: counted as last"),
    SHE: pgettext_lazy("table: she", "left the game: counted as last"),
    NEUTRAL: pgettext_lazy("table: neutral", "left the game: counted as last"),
}
PRESENCE_LEFT = {
    HE: pgettext_lazy("presence: he", "left"),
    SHE: pgettext_lazy("presence: she", "left"),
    NEUTRAL: pgettext_lazy("presence: neutral", "left"),
}
BACK_BUTTON = {  # the player's own button to take his seat back from the autopilot
    HE: pgettext_lazy("table: he", "I'm back"),
    SHE: pgettext_lazy("table: she", "I'm back"),
    NEUTRAL: pgettext_lazy("table: neutral", "I'm back"),
}
RECENTLY_HERE = {
    HE: pgettext_lazy("friends: he", "was here a few minutes ago"),
    SHE: pgettext_lazy("friends: she", "was here a few minutes ago"),
    NEUTRAL: pgettext_lazy("friends: neutral", "was here a few minutes ago"),
}


def said_of(phrases: dict, address: str) -> str:
    """One of the phrase tables above, for a player with this address."""
    return str(phrases[address_of(address)])


def left_and_last(people) -> str:
    """The result's line on those who left the game ([(name, address)]): one player gets a
    sentence in his gender, several the plural."""
    people = list(people)
    if len(people) == 1:
        name, address = people[0]
        texts = {
            HE: pgettext("table: he", "Left the game and counted as last: %(name)s."),
            SHE: pgettext("table: she", "Left the game and counted as last: %(name)s."),
            NEUTRAL: pgettext("table: neutral", "Left the game and counted as last: %(name)s."),
        }
        return texts[address_of(address)] % {"name": name}
    names = ", ".join(str(name) for name, _address in people)
    return pgettext("table", "Left the game and counted as last: %(names)s.") % {"names": names}
