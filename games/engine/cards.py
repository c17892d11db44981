"""Cards, decks and the beating order (R1, R9, T1).

Cards travel everywhere as their codes ("10H", "QS"); the tables below turn a
code into rank and suit with one dict lookup, which keeps the hot path of a
playout free of parsing.
"""

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED_SUITS = frozenset({"H", "D"})

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_VALUE = {name: value for value, name in enumerate(RANK_NAMES, start=2)}

# T1: each deck size is a range of ranks; 36 (6 to A) is the house deck (R1).
DECK_LOWEST_RANK = {24: "9", 36: "6", 52: "2"}
# R1 and T1: how many players each deck can seat.
DECK_PLAYER_LIMITS = {24: (2, 4), 36: (2, 6), 52: (2, 6)}

ALL_CARDS = tuple(rank + suit for suit in SUITS for rank in RANK_NAMES)
RANK = {card: RANK_VALUE[card[:-1]] for card in ALL_CARDS}
SUIT = {card: card[-1] for card in ALL_CARDS}


def deck(size: int) -> list[str]:
    """The cards of a deck of `size` cards in a fixed order (before shuffling)."""
    lowest = RANK_VALUE[DECK_LOWEST_RANK[size]]
    return [card for card in ALL_CARDS if RANK[card] >= lowest]


def beats(attack: str, defence: str, trump: str) -> bool:
    """R9: a higher card of the same suit, or a trump on a non-trump."""
    if SUIT[defence] == SUIT[attack]:
        return RANK[defence] > RANK[attack]
    return SUIT[defence] == trump


# BEATERS[trump][attack] is every card that beats `attack`; precomputed so that
# listing a defender's options is a set intersection, not a loop of comparisons.
BEATERS = {trump: {a: frozenset(d for d in ALL_CARDS if beats(a, d, trump)) for a in ALL_CARDS} for trump in SUITS}


def strength(card: str, trump: str) -> int:
    """Order in which a player parts with cards: every trump above every non-trump."""
    return RANK[card] + (100 if SUIT[card] == trump else 0)


def _hand_order(trump: str) -> dict[str, int]:
    suit_order = {s: i for i, s in enumerate(s for s in SUITS if s != trump)}
    suit_order[trump] = 9
    return {c: suit_order[SUIT[c]] * 100 + RANK[c] for c in ALL_CARDS}


# HAND_ORDER[trump][card]: sort key of sort_hand, precomputed (views sort every hand).
HAND_ORDER = {trump: _hand_order(trump) for trump in SUITS}


def sort_hand(cards, trump: str) -> list[str]:
    """A hand as a player holds it: by suit (trumps last), low to high."""
    return sorted(cards, key=HAND_ORDER[trump].__getitem__)


def is_card(code) -> bool:
    return code in RANK
