"""The searching bot (levels hard and expert): determinized Monte Carlo, and
for the expert exact endgames.

For every decision with more than one legal action it repeats, while its
budget lasts:

1. deal the cards it cannot see at random, consistently with everything its
   seat's view says (`sample_game`): its own hand, the table, the cards
   other players are publicly known to hold (picked up, shown, the lowest
   trump of R6, the face-up trump drawn), how many cards each hand and the
   stock hold, the face-up trump under the stock, and the discard pile when
   the view lists it; a player who took rather than beat a card (the view's
   `declined`) is dealt a card that would have beaten it less often (a
   rejection weight per such card, `SUIT_WEIGHT`, `TRUMP_WEIGHT`), not never:
   players take on purpose;
2. on that one deal, try every candidate action still in the running and
   play the game out with the club player (`HeuristicBot`) in every seat;
3. score each playout 1 if its side did not lose, 1/2 for a draw, 0 if it
   lost (partners: the pair's result, so it plays for its partner; the rules
   never let it throw in against him).

With an endgame budget (`endgame_nodes`, the expert level) and two
players, two things change (games/bots/endgame.py):

- once the stock is empty nothing is hidden any more: the position is
  solved exactly (alpha-beta over the engine, values 1 / 1/2 / 0) and the
  bot plays a move of the best value, the club player's choice first among
  equals; if the position is lost against perfect play, or the solver runs
  out of positions or time, the playouts below choose as usual;
- with a few cards left in the stock (`NEAR_ENDGAME_STOCK`), each playout
  plays on only until the stock is gone and then solves its deal exactly
  (`solved_playout`, at most `PLAYOUT_ENDGAME_NODES` positions, else the club
  player finishes it); such a playout counts `SOLVED_PLAYOUT_COST` in the
  playout budget.

Every candidate is tried on the same deals (paired comparisons), so that a
few hundred playouts separate close moves; a candidate clearly behind the
best one (two standard errors of the paired difference) stops being tried.
The answer is the best mean, the club player's own choice winning ties.

It sees only the view: the hidden hands of the real game never reach it, and
the random generator of a decision is seeded from the bot's seed and the view
itself, so the same view gets the same answer (`tests/bots`).

Budget: at most `iterations` playouts and, when `seconds` is set, no new
playout once that much time has passed on `clock` (one playout, about a
millisecond, is the overshoot; the solver reads the clock every
`endgame.CLOCK_EVERY` positions, 10-30 ms). Matches (`manage.py arena`) use the
iteration budget only, so that their results are reproducible.

`choose` is plain synchronous CPU work of bounded length: call it where
blocking is fine, a Celery worker (the play service's bot task) or a
management command, never on a server's event loop.
"""

import json
import random
import time

from games.engine import Game, deck
from games.engine.cards import BEATERS
from games.engine.rules import PEREVODNOY

from .arena import next_seat
from .endgame import LOSS, BudgetExceeded, Solver, is_endgame, solve
from .heuristic import HeuristicBot

# A playout longer than this is scored as a draw: perevodnoy allows endless loops
# (two players passing the same rank back and forth, taking in turn, nobody drawing)
# and the club player can fall into one.
PLAYOUT_MAX_ACTIONS = 1000

# A player who took rather than beat a card (the view's "declined") is less likely to
# hold a card that beats it: a deal giving him one is kept with this weight per such card
# (a higher card of the suit; a trump, weaker evidence: trumps are often kept on purpose).
SUIT_WEIGHT = 0.3
TRUMP_WEIGHT = 0.6
# Deals drawn at most for one sample (the last one is kept whatever its weight).
SAMPLE_TRIES = 12

# Expert (a bot with an endgame budget), two players: with at most this many cards in
# the stock, every playout solves its deal exactly once the stock is empty, within
# this many positions; such a playout counts as this many in the playout budget.
NEAR_ENDGAME_STOCK = 4
PLAYOUT_ENDGAME_NODES = 1500
SOLVED_PLAYOUT_COST = 8

# Paired playout rounds before a candidate may be dropped, and how far behind it must be.
PRUNE_AFTER_ROUNDS = 6
PRUNE_STANDARD_ERRORS = 2.0


class SearchBot:
    level = "hard"

    def __init__(
        self,
        seed=None,
        iterations: int = 400,
        seconds: float | None = 0.5,
        clock=time.perf_counter,
        level=None,
        endgame_nodes: int = 0,
    ):
        if iterations < 1:
            raise ValueError("A searching bot needs at least one playout per decision.")
        if seconds is not None and seconds <= 0:
            raise ValueError("The time budget must be positive (or None for an iteration budget only).")
        if endgame_nodes < 0:
            raise ValueError("The endgame budget is a number of positions, 0 to play endgames by search.")
        self.seed = seed
        self.iterations = iterations
        # Two-player endgames (stock empty) solved exactly within this many positions (0: never).
        self.endgame_nodes = endgame_nodes
        self.seconds = seconds
        self.clock = clock
        if level is not None:
            self.level = level
        # The playout policy for every seat, and the tie-breaker at the root.
        self.policy = HeuristicBot(seed=seed)
        self.last_stats = None  # playouts and rounds of the last decision (tests, tuning)

    def __repr__(self):
        return (
            f"SearchBot(seed={self.seed!r}, iterations={self.iterations}, seconds={self.seconds}, "
            f"endgame_nodes={self.endgame_nodes})"
        )

    # ---------------------------------------------------------------- entry

    def choose(self, view: dict) -> str | None:
        legal = view["legal_actions"]
        self.last_stats = {"playouts": 0, "rounds": 0}
        if not legal:
            return None
        if len(legal) == 1:
            return legal[0]
        fallback = self.policy.choose(view)
        start = self.clock()
        deadline = None if self.seconds is None else start + self.seconds
        rng = random.Random(f"{self.seed!r}|{json.dumps(view, sort_keys=True)}")
        sampler = DealSampler(view)
        if not sampler.consistent:
            return fallback

        seat = view["seat"]
        if self.endgame_nodes and is_endgame(view):
            # Perfect information: the one deal the sampler can make is the real one.
            action, values = solve(sampler.sample(rng), seat, legal, self.endgame_nodes, fallback, deadline, self.clock)
            self.last_stats = {"playouts": 0, "rounds": 0, "solved": values is not None}
            if action is not None:
                return action
            if values is not None and all(v == LOSS for v in values.values()):
                # Lost against perfect play: the playouts find the line a club player most likely misplays.
                self.last_stats["lost"] = True
        alive = list(legal)
        values = {a: [] for a in legal}
        playouts = rounds = 0
        clock = self.clock
        iterations = self.iterations
        solver = None
        if self.endgame_nodes and near_endgame(view):
            # Each playout ends in an exact solution of its deal's endgame: dearer, far less noisy.
            iterations = max(len(legal), iterations // SOLVED_PLAYOUT_COST)
            solver = Solver(seat, PLAYOUT_ENDGAME_NODES, deadline, clock)
        while playouts + len(alive) <= iterations:
            if deadline is not None and clock() >= deadline:
                break
            game = sampler.sample(rng)
            if solver is not None:
                solver.clear()  # another deal: its positions are other positions
            scores = []
            for action in alive:
                if deadline is not None and scores and clock() >= deadline:
                    break
                if solver is None:
                    scores.append(self._playout(game.copy(), seat, action))
                else:
                    scores.append(solved_playout(game.copy(), seat, action, self.policy, solver))
                playouts += 1
            if len(scores) < len(alive):
                break  # an unfinished round would favour the candidates tried first
            for action, score in zip(alive, scores):
                values[action].append(score)
            rounds += 1
            if rounds >= PRUNE_AFTER_ROUNDS and len(alive) > 1:
                alive = _prune(alive, values)
        self.last_stats = {**self.last_stats, "playouts": playouts, "rounds": rounds, "candidates": len(alive)}
        if rounds == 0:
            return fallback
        best_mean = max(sum(values[a]) / len(values[a]) for a in alive)
        best = [a for a in alive if sum(values[a]) / len(values[a]) >= best_mean - 1e-9]
        return fallback if fallback in best else best[0]

    # ------------------------------------------------------------- playouts

    def _playout(self, game: Game, seat: int, action: str) -> float:
        return playout(game, seat, action, self.policy)


def playout(game: Game, seat: int, action: str, policy) -> float:
    """Play `action` for `seat`, then the game out with `policy` in every seat: 1 if the
    seat's side did not lose, 1/2 for a draw or a playout cut short, 0 for a loss.

    `game` is played on (hand a copy). Also the reviews' judge (games.bots.evaluate).
    """
    game.act(seat, action)
    choose = policy.choose
    rules = game.rules
    # The seat records of the playout views, updated in place (the club player keeps no reference).
    seats = [
        {"seat": s, "cards": 0, "known": (), "team": rules.team_of(s), "in_game": True} for s in range(rules.players)
    ]
    rules_data = rules.to_dict()
    for _ in range(PLAYOUT_MAX_ACTIONS):  # perevodnoy can loop for ever: such a playout is a draw
        if game.is_over:
            break
        mover = next_seat(game)
        legal = game.legal_actions(mover)
        game.act(mover, legal[0] if len(legal) == 1 else choose(_playout_view(game, mover, legal, rules_data, seats)))
    if not game.is_over or not game.losers:
        return 0.5
    return 0.0 if seat in game.losers else 1.0


def solved_playout(game: Game, seat: int, action: str, policy, solver: Solver) -> float:
    """`playout`, but once the stock is empty (two players: nothing is hidden in the deal
    any more) the rest is solved exactly, both sides playing perfectly; if the solver's
    budget runs out first, the club player plays it out as usual."""
    game.act(seat, action)
    choose = policy.choose
    rules = game.rules
    seats = [
        {"seat": s, "cards": 0, "known": (), "team": rules.team_of(s), "in_game": True} for s in range(rules.players)
    ]
    rules_data = rules.to_dict()
    tried = False
    for _ in range(PLAYOUT_MAX_ACTIONS):
        if game.is_over:
            break
        if not tried and not game.stock and not game.out:
            tried = True
            solver.nodes = 0
            try:
                return solver.value(game)
            except BudgetExceeded:
                pass
        mover = next_seat(game)
        legal = game.legal_actions(mover)
        game.act(mover, legal[0] if len(legal) == 1 else choose(_playout_view(game, mover, legal, rules_data, seats)))
    if not game.is_over or not game.losers:
        return 0.5
    return 0.0 if seat in game.losers else 1.0


def near_endgame(view: dict) -> bool:
    """Two players, a few cards left in the stock: the endgame is a few actions away."""
    rules = view["rules"]
    return rules["players"] == 2 and not rules.get("partners") and 0 < view["stock_size"] <= NEAR_ENDGAME_STOCK


def _playout_view(game: Game, seat: int, legal: list, rules: dict, seats: list) -> dict:
    """The part of `Game.view` the club player reads, cheaper: playouts spend most time here.

    Cards known to be in other hands are left out (the playout is a guess
    anyway), and hands are not sorted.
    """
    table = game.table
    defender = game.defender
    places = game.places
    for record in seats:
        s = record["seat"]
        record["cards"] = len(game.hand(s))
        record["in_game"] = s not in places
    uncovered = any(d is None for _, d in table)
    return {
        "seat": seat,
        "rules": rules,
        "trump": game.trump,
        "stock_size": game.stock_size,
        "hand": game.hand(seat),
        "seats": seats,
        "table": table,
        "defender": defender,
        "taking": uncovered and defender not in game.to_move(),
        "attack_limit": game.attack_limit,
        "legal_actions": legal,
    }


def _prune(alive: list, values: dict) -> list:
    """Drop the candidates clearly behind the best on the same deals."""
    rounds = len(values[alive[0]])
    means = {a: sum(values[a]) / rounds for a in alive}
    best = max(alive, key=means.__getitem__)
    kept = []
    for action in alive:
        if action == best:
            kept.append(action)
            continue
        diffs = [x - y for x, y in zip(values[action], values[best])]
        mean = sum(diffs) / rounds
        var = sum((d - mean) ** 2 for d in diffs) / (rounds - 1)
        se = (var / rounds) ** 0.5
        if mean + PRUNE_STANDARD_ERRORS * max(se, 1.0 / rounds) >= 0:
            kept.append(action)
    return kept


class DealSampler:
    """Whole positions that agree with one seat's view, the unseen cards dealt at random.

    The position is rebuilt through the engine's public JSON form
    (`Game.from_json`), which expresses any moment of a game, mid-bout included.
    A few fields of that form are not in the view and are inferred: the
    seats that transferred this bout (the chain of defenders from the
    opener to the current one), the trump shown this bout (T5) and the count
    of players out before the bout (it only numbers places).
    """

    def __init__(self, view: dict):
        rules = view["rules"]
        me = view["seat"]
        seats = view["seats"]
        self.me = me
        cards = deck(rules["deck"])
        seen = set(view["hand"])
        for pair in view["table"]:
            seen.update(c for c in pair if c)
        for s in seats:
            if s["seat"] != me:
                seen.update(s["known"])
        stock_size = view["stock_size"]
        trump_card = view["trump_card"]
        discard = list(view.get("discard") or [])
        if stock_size:
            seen.add(trump_card)
        elif trump_card and trump_card not in seen and "discard" not in view:
            # The face-up trump, once drawn, is known to be in its holder's hand:
            # with the stock gone and nobody holding it, it was discarded.
            discard.append(trump_card)
        seen.update(discard)
        self.pool = [c for c in cards if c not in seen]
        self.hidden = {s["seat"]: s["cards"] - len(s["known"]) for s in seats if s["seat"] != me and s["in_game"]}
        self.stock_hidden = max(stock_size - 1, 0)
        discard_hidden = view["discard_size"] - len(discard)
        self.consistent = (
            discard_hidden >= 0
            and all(h >= 0 for h in self.hidden.values())
            and sum(self.hidden.values()) + self.stock_hidden + discard_hidden == len(self.pool)
        )
        self.known = {s["seat"]: list(s["known"]) for s in seats}
        # R9 "could not beat": the cards that would have beaten what each hidden hand declined.
        beaters = BEATERS[view["trump"]]
        self.unlikely = {}
        for s in seats:
            if s["seat"] in self.hidden and self.hidden[s["seat"]] and s.get("declined"):
                weights = {}
                for a in s["declined"]:
                    for c in beaters[a]:
                        w = TRUMP_WEIGHT if c[-1] == view["trump"] and a[-1] != view["trump"] else SUIT_WEIGHT
                        weights[c] = min(weights.get(c, 1.0), w)
                self.unlikely[s["seat"]] = weights
        self.known[me] = list(view["hand"])
        self.discard = discard
        self.trump_card = trump_card
        self.stock_size = stock_size
        places = [[int(s), p] for s, p in view["places"].items()]
        table = [list(pair) for pair in view["table"]]
        transferrers = _transferrers(view)
        table_rank = table[0][0][:-1] if table else None
        shown = sorted(
            c
            for s in transferrers
            for c in self.known[s]
            if s != me and c[-1] == view["trump"] and c[:-1] == table_rank and rules["trump_show_transfer"]
        )
        self.state = {
            "rules": rules,
            "dealer": 0,
            "trump": view["trump"],
            "trump_card": trump_card,
            "hands": None,
            "stock": None,
            "discard": None,
            "table": table,
            "attacker": view["attacker"],
            "defender": view["defender"],
            "taking": view["taking"],
            "passed": [s["seat"] for s in seats if s["passed"]],
            "first_bout": view["first_bout"],
            "places": places,
            "left_before_bout": len(places),
            "known": [sorted(s["known"]) for s in seats],
            "declined": [list(s.get("declined", ())) for s in seats],
            "shown": shown,
            "transferrers": transferrers,
            "stock_touched": not view["first_bout"],
            "over": False,
            "durak": None,
            "losers": [],
            "lowest_trump": (
                [view["lowest_trump"]["seat"], view["lowest_trump"]["card"]] if view["lowest_trump"] else None
            ),
        }

    def sample(self, rng: random.Random) -> Game:
        """One position: the unseen cards dealt at random, deals where a player holds
        cards that would have beaten what he declined made less likely (not impossible:
        a player may take on purpose)."""
        pool = self.pool[:]
        rng.shuffle(pool)
        if self.unlikely:
            # Rejection sampling: keep a deal with the product of its unlikely cards' weights.
            for _ in range(SAMPLE_TRIES - 1):
                if rng.random() < self._weight(pool):
                    break
                rng.shuffle(pool)
        hands = []
        at = 0
        for s in range(len(self.known)):
            hand = list(self.known[s])
            if s != self.me and s in self.hidden:
                hand += pool[at : at + self.hidden[s]]
                at += self.hidden[s]
            hands.append(hand)
        stock = pool[at : at + self.stock_hidden]
        at += self.stock_hidden
        if self.stock_size:
            stock.append(self.trump_card)
        state = dict(self.state, hands=hands, stock=stock, discard=self.discard + pool[at:])
        return Game.from_json(json.dumps(state))

    def _weight(self, pool: list) -> float:
        """How plausible a deal of `pool` (in `sample`'s order) is, from 1 down."""
        weight = 1.0
        at = 0
        for s in range(len(self.known)):
            if s == self.me or s not in self.hidden:
                continue
            count = self.hidden[s]
            unlikely = self.unlikely.get(s)
            if unlikely:
                for c in pool[at : at + count]:
                    weight *= unlikely.get(c, 1.0)
            at += count
        return weight


def _transferrers(view: dict) -> list[int]:
    """Perevodnoy: the defenders this bout passed the defence on from (R22)."""
    table = view["table"]
    if not table or view["rules"]["variant"] != PEREVODNOY:
        return []
    seats = view["seats"]
    n = len(seats)

    def defender_for(attacker):
        team = seats[attacker]["team"]
        for i in range(1, n):
            s = seats[(attacker + i) % n]
            if s["in_game"] and s["team"] != team:
                return s["seat"]
        return attacker

    chain = []
    s = defender_for(view["attacker"])
    while s != view["defender"] and len(chain) < len(table):
        chain.append(s)
        s = defender_for(s)
    return sorted(set(chain)) if s == view["defender"] else []
