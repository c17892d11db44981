"""The action texts of the contract, as interned objects.

An `Action` is a `str` (so `"take" in game.legal_actions(seat)` and
`str(action)` just work) that also carries its parts. Every possible action is
built once at import, so parsing a text or listing moves is a dict lookup.
"""

from .cards import ALL_CARDS, RANK_VALUE
from .refusals import IllegalAction


class Action(str):
    """kind: attack | defend | transfer | take | pass | show | swap.

    card: the card played (for defend, the covering card); target: the table
    card a defence covers.
    """

    kind: str
    card: str | None
    target: str | None

    def __new__(cls, text: str, kind: str, card: str | None = None, target: str | None = None):
        self = super().__new__(cls, text)
        self.kind = kind
        self.card = card
        self.target = target
        return self

    def __repr__(self):
        return f"Action({str.__repr__(self)})"

    def __reduce__(self):
        return (parse_action, (str(self),))


TAKE = Action("take", "take")
PASS = Action("pass", "pass")
ATTACK = {c: Action(f"attack {c}", "attack", c) for c in ALL_CARDS}
TRANSFER = {c: Action(f"transfer {c}", "transfer", c) for c in ALL_CARDS}
SHOW = {c: Action(f"show {c}", "show", c) for c in ALL_CARDS}
SWAP = {c: Action(f"swap {c}", "swap", c) for c in ALL_CARDS}
DEFEND = {
    (target, card): Action(f"defend {target} with {card}", "defend", card, target)
    for target in ALL_CARDS
    for card in ALL_CARDS
}

_BY_TEXT: dict[str, Action] = {str(a): a for a in (TAKE, PASS)}
for _table in (ATTACK, TRANSFER, SHOW, SWAP, DEFEND):
    _BY_TEXT.update((str(a), a) for a in _table.values())


def _normal_card(word: str) -> str:
    word = word.strip().upper()
    rank, suit = word[:-1], word[-1:]
    if rank == "1" or rank == "T":  # "1H"/"TH" are common spellings of the ten
        rank = "10"
    return rank + suit if rank in RANK_VALUE else word


def parse_action(action) -> Action:
    """The interned Action for an action object or its text, or IllegalAction."""
    if isinstance(action, Action):
        return action
    if not isinstance(action, str):
        raise IllegalAction("action_not_text", type=type(action).__name__)
    found = _BY_TEXT.get(action)
    if found is not None:
        return found
    words = action.split()
    if words:
        words[0] = words[0].lower()
        if len(words) == 4 and words[2].lower() == "with":
            words[2] = "with"
            words[1], words[3] = _normal_card(words[1]), _normal_card(words[3])
        elif len(words) == 2:
            words[1] = _normal_card(words[1])
        found = _BY_TEXT.get(" ".join(words))
        if found is not None:
            return found
    shown = action if len(action) <= 40 else action[:40] + "…"
    raise IllegalAction("malformed_action", action=repr(shown))
