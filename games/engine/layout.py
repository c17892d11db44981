"""Setting a game up: the deal from a seed (R4-R6) and hand-built positions.

`Game.new` and `Game.from_layout` are these functions; they receive the class
so that this module never imports `game.py`.
"""

from .cards import SUIT, deck, is_card
from .deal import DEAL_METHOD, shuffle
from .rules import HAND_SIZE, Rules


def blank(cls, rules: Rules, dealer: int):
    """A game of `cls` with no cards anywhere yet: the fields every setup starts from."""
    game = cls.__new__(cls)
    game.rules = rules
    game.n = rules.players
    game._teams = tuple(rules.team_of(s) for s in range(rules.players))
    game.dealer = dealer
    game.discard_pile = []
    game.pairs = []
    game.taking = False
    game.passed = set()
    game.first_bout = True
    game.out = {}
    game.left_before_bout = 0
    game.known = [set() for _ in range(rules.players)]
    game.declined = [[] for _ in range(rules.players)]
    game.shown = set()
    game.transferrers = set()
    game.stock_touched = False
    game.over = False
    game.durak = None
    game.losers = []
    game.lowest_trump = None
    return game


def dealt_layout(cards: list, players: int, dealer: int) -> tuple[list, list, str]:
    """R4, R5: (hands, stock top first, face-up trump card) from a shuffled deck, top card first.

    One card at a time to each player in turn, starting left of the dealer,
    until each holds 6. The next card is turned: it names trump and lies
    under the stock, drawn last. When the deal uses the whole deck the last
    card dealt (the dealer's) names trump and the stock is empty.
    """
    hands = [[] for _ in range(players)]
    dealt = players * HAND_SIZE
    for i in range(dealt):
        hands[(dealer + 1 + i) % players].append(cards[i])
    rest = cards[dealt:]
    if rest:
        return hands, rest[1:] + rest[:1], rest[0]
    return hands, [], cards[dealt - 1]


def new(cls, rules: Rules, seed, dealer: int = 0, deal_method: int = DEAL_METHOD):
    """Shuffle with `seed` by `deal_method`, deal 6 each starting left of the dealer (R4, R5), apply R6."""
    if not 0 <= dealer < rules.players:
        raise ValueError(f"The dealer must be a seat from 0 to {rules.players - 1}.")
    cards = deck(rules.deck)
    shuffle(cards, seed, deal_method)
    game = blank(cls, rules, dealer)
    game.hands, game.stock, game.trump_card = dealt_layout(cards, rules.players, dealer)
    if not game.stock:
        # R5: the trump card stays in the dealer's hand, public until played.
        game.known[dealer].add(game.trump_card)
    game.trump = SUIT[game.trump_card]
    game._start_first_bout(None)
    return game


def from_layout(
    cls,
    rules: Rules,
    hands,
    stock=(),
    attacker: int | None = None,
    first_bout: bool = True,
    trump: str | None = None,
    dealer: int = 0,
    table=(),
    places: dict | None = None,
):
    """A hand-built position. `stock` is top first, its last card the face-up trump.

    Cards in neither hands, stock nor table are taken to be in the discard pile.
    With an empty stock, a seat with an empty hand has left the game (place 1
    unless `places` says otherwise).
    """
    n = rules.players
    if len(hands) != n:
        raise ValueError(f"The rules seat {n} players but {len(hands)} hands were given.")
    in_deck = set(deck(rules.deck))
    stock = list(stock)
    table = [[a, d] for a, d in table]
    seen = set()
    for card in [c for h in hands for c in h] + stock + [c for p in table for c in p if c]:
        if not is_card(card) or card not in in_deck:
            raise ValueError(f"{card!r} is not a card of the {rules.deck}-card deck.")
        if card in seen:
            raise ValueError(f"{card} appears twice in the layout.")
        seen.add(card)
    if stock:
        if trump is not None and trump != SUIT[stock[-1]]:
            raise ValueError(f"The face-up card {stock[-1]} makes {SUIT[stock[-1]]} trump, not {trump}.")
        trump = SUIT[stock[-1]]
    elif trump not in ("S", "H", "D", "C"):
        raise ValueError("With an empty stock the layout must name the trump suit (trump='H').")
    game = blank(cls, rules, dealer)
    game.hands = [list(h) for h in hands]
    game.stock = stock
    game.trump = trump
    game.trump_card = stock[-1] if stock else None
    game.discard_pile = [c for c in deck(rules.deck) if c not in seen]
    game.first_bout = bool(first_bout)
    game.stock_touched = not first_bout
    if places:
        game.out = {int(s): int(p) for s, p in places.items()}
    elif not stock:
        game.out = {s: 1 for s in range(n) if not hands[s]}
    for s in game.out:
        if hands[s]:
            raise ValueError(f"Seat {s} has left the game but holds cards.")
    game.left_before_bout = len(game.out)
    holders = [s for s in range(n) if s not in game.out]
    if len(holders) <= 1 or len({rules.team_of(s) for s in holders}) == 1:
        raise ValueError("That layout has no game left to play: one side alone holds cards.")
    if attacker is not None and (not 0 <= attacker < n or attacker in game.out):
        raise ValueError(f"Seat {attacker} cannot attack: it is not a seat still in the game.")
    game._start_first_bout(attacker)
    if table:
        game.pairs = table
        game.first_bout = bool(first_bout)
    return game
