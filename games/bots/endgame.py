"""Exact play of a two-player endgame (the expert level's solver).

With two players and the stock empty, nothing is hidden from a seat any
more: the other player holds exactly the cards that are neither in its hand,
on the table nor in the discard pile (the view lists the discard pile). The
position is a game of perfect information, and `solve` plays it out
exhaustively over the engine itself (`Game.copy`, `legal_actions`, `act`):

- the seat awaited acts next, as `games.bots.arena.next_seat` picks it (a
  thrower who is not awaited waits his turn);
- the value of a position for a seat is 1 if it does not lose, 1/2 for a
  draw (both hands empty in the same bout), 0 if it is the durak;
- two boolean searches ("can the seat reach at least 1?", "at least 1/2?")
  with cut-offs at the first proof and a table of positions already decided
  (transpositions are frequent: the same cards played in another order);
- perevodnoy can loop (the two players passing the same cards back and forth
  with transfers and takes): a position met again on the current line, or a
  line longer than `MAX_DEPTH` actions, counts as a draw, as the playouts
  count an endless game (a value found through such a loop is remembered for
  the position like any other: in perevodnoy it may, rarely, differ from the
  value the position has when reached by another line);
- the work is bounded by a node budget (positions visited); when it runs out
  the answer is None and the caller searches as before (Monte Carlo).

Pure Python, no Django, deterministic (no randomness at all).
"""

from games.engine import Game
from games.engine.cards import ALL_CARDS, strength

# A line longer than this (actions) is scored as a draw: only perevodnoy loops get near it.
MAX_DEPTH = 200

# With a time limit, the clock is read once per this many positions (10-30 ms of work).
CLOCK_EVERY = 1024

# Values of a position for the solving seat.
WIN, DRAW, LOSS = 1.0, 0.5, 0.0


class BudgetExceeded(Exception):
    """The node budget ran out before the position was decided."""


def is_endgame(view: dict) -> bool:
    """Is the seat's position one of perfect information the solver may play?

    Two players both still in, the stock empty and the discard pile listed,
    so that the other hand is exactly the cards the seat has not seen.
    """
    rules = view["rules"]
    return (
        rules["players"] == 2
        and not rules.get("partners")
        and view["stock_size"] == 0
        and "discard" in view
        and not view["is_over"]
        and all(s["in_game"] for s in view["seats"])
    )


def _awaited(game: Game) -> int:
    """The seat that acts next (the first awaited one clockwise from the attacker)."""
    waiting = game.to_move()
    if len(waiting) == 1:
        return waiting[0]
    start, n = game.attacker, game.n
    return min(waiting, key=lambda s: (s - start) % n)


def _order(game: Game, actions: list, trump: str) -> list:
    """Likely good moves first (cheap cards before dear ones, giving in last), for early cut-offs."""

    def key(action):
        card = action.card
        if card is None:
            return 1000  # take / pass
        return strength(card, trump)

    return sorted(actions, key=key)


class Solver:
    """Exact values of two-player endgame positions for one seat, within a node budget.

    One solver may answer several questions about the same endgame: the
    table of decided positions is kept between calls (`clear` empties it).
    """

    def __init__(self, seat: int, budget: int = 20_000, deadline: float | None = None, clock=None):
        if budget < 1:
            raise ValueError("The solver needs a budget of at least one position.")
        self.seat = seat
        self.budget = budget
        # Optional time limit too: `clock()` is read every CLOCK_EVERY positions.
        self.deadline = deadline
        self.clock = clock
        self.nodes = 0
        # (position, threshold) -> bool: can the seat reach at least `threshold`?
        self.decided: dict = {}

    def clear(self):
        self.decided.clear()
        self.nodes = 0

    # ------------------------------------------------------------ values

    def value(self, game: Game) -> float:
        """The exact value of `game` for the seat (raises BudgetExceeded)."""
        if self._reaches(game, WIN, 0, set()):
            return WIN
        if self._reaches(game, DRAW, 0, set()):
            return DRAW
        return LOSS

    def action_values(self, game: Game, actions) -> dict:
        """The value for the seat of each of `actions` (the seat's own, `game` awaiting it)."""
        values = {}
        seat = self.seat
        for action in actions:
            child = game.copy()
            child.act(seat, action)
            values[action] = self.value(child)
            if values[action] == WIN:
                break  # nothing beats a win; the rest stay unknown
        return values

    # ------------------------------------------------------------ search

    def _outcome(self, game: Game) -> float:
        losers = game.losers
        if not losers:
            return DRAW
        return LOSS if self.seat in losers else WIN

    def _reaches(self, game: Game, threshold: float, depth: int, line: set) -> bool:
        """Can the seat make sure of at least `threshold` from `game`?"""
        if game.over:
            return self._outcome(game) >= threshold
        if depth >= MAX_DEPTH:
            return threshold <= DRAW
        key = _key(game)
        if key in line:
            return threshold <= DRAW  # a loop: the game would never end
        memo = (key, threshold)
        known = self.decided.get(memo)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.budget:
            raise BudgetExceeded
        if self.deadline is not None and not self.nodes % CLOCK_EVERY and self.clock() >= self.deadline:
            raise BudgetExceeded
        mover = _awaited(game)
        actions = game.legal_actions(mover)
        if len(actions) > 1:
            actions = _order(game, actions, game.trump)
        mine = mover == self.seat
        line.add(key)
        result = not mine  # mine: any action that reaches; theirs: every action must
        for action in actions:
            child = game.copy()
            child.act(mover, action)
            if self._reaches(child, threshold, depth + 1, line) == mine:
                result = mine
                break
        line.discard(key)
        self.decided[memo] = result
        return result


# A bit per card: hands and card sets become ints in the table of decided positions
# (small keys: a budget of 50,000 positions takes under 20 MB).
_BIT = {card: 1 << i for i, card in enumerate(ALL_CARDS)}


def _mask(cards) -> int:
    bit = _BIT
    return sum(bit[c] for c in cards)


def _key(game: Game) -> tuple:
    """What decides the rest of a two-player endgame (discards and history do not)."""
    bit = _BIT
    return (
        _mask(game.hands[0]),
        _mask(game.hands[1]),
        tuple(bit[a] | (bit[d] << 52 if d else 0) for a, d in game.pairs),
        game.attacker,
        game.defender,
        game.taking,
        sum(1 << s for s in game.passed),
        _mask(game.shown),
        sum(1 << s for s in game.transferrers),
        tuple(sorted(game.out.items())),
    )


def solve(
    game: Game, seat: int, actions, budget: int = 20_000, prefer=None, deadline=None, clock=None
) -> tuple[str | None, dict | None]:
    """The best of `actions` for `seat` in the perfect-information `game`, and their values.

    Returns (action, values), or (None, None) when the budget ran out first.
    Among the moves of the best value, `prefer` (the club player's choice)
    wins, else the first one listed. If every move loses, the answer is
    (None, values): the caller chooses how to lose least surely. `deadline`
    (a time on `clock`) stops the search like the node budget.
    """
    solver = Solver(seat, budget, deadline, clock)
    actions = list(actions)
    if prefer in actions:  # try the club player's move first: often already the best
        actions.remove(prefer)
        actions.insert(0, prefer)
    try:
        values = solver.action_values(game, actions)
    except BudgetExceeded:
        return None, None
    best = max(values.values())
    if best == LOSS:
        return None, values
    for action in actions:
        if values.get(action) == best:
            return str(action), values
    raise AssertionError("unreachable: some action has the best value")
