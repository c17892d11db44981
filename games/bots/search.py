"""The searching bot (levels hard and expert): determinized Monte Carlo.

For every decision with more than one legal action it repeats, while its
budget lasts:

1. deal the cards it cannot see at random, consistently with everything its
   seat's view says (`sample_game`): its own hand, the table, the cards
   other players are publicly known to hold (picked up, shown, the lowest
   trump of R6, the face-up trump drawn), how many cards each hand and the
   stock hold, the face-up trump under the stock, and the discard pile when
   the view lists it;
2. on that one deal, try every candidate action still in the running and
   play the game out with the club player (`HeuristicBot`) in every seat;
3. score each playout 1 if its side did not lose, 1/2 for a draw, 0 if it
   lost (partners: the pair's result, so it plays for its partner; the rules
   never let it throw in against him).

Every candidate is tried on the same deals (paired comparisons), so that a
few hundred playouts separate close moves; a candidate clearly behind the
best one (two standard errors of the paired difference) stops being tried.
The answer is the best mean, the club player's own choice winning ties.

It sees only the view: the hidden hands of the real game never reach it, and
the random generator of a decision is seeded from the bot's seed and the view
itself, so the same view gets the same answer (`tests/bots`).

Budget: at most `iterations` playouts and, when `seconds` is set, no new
playout once that much time has passed on `clock` (one playout, about a
millisecond, is the overshoot). Matches (`manage.py arena`) use the
iteration budget only, so that their results are reproducible.

`choose` is plain synchronous CPU work of bounded length: call it where
blocking is fine, a Celery worker (the play service's bot task) or a
management command, never on a server's event loop.
"""

import json
import random
import time

from games.engine import Game, deck

from .arena import next_seat
from .heuristic import HeuristicBot

# A playout longer than this is scored as a draw: perevodnoy allows endless loops
# (two players passing the same rank back and forth, taking in turn, nobody drawing)
# and the club player can fall into one.
PLAYOUT_MAX_ACTIONS = 1000

# Paired playout rounds before a candidate may be dropped, and how far behind it must be.
PRUNE_AFTER_ROUNDS = 6
PRUNE_STANDARD_ERRORS = 2.0


class SearchBot:
    level = "hard"

    def __init__(
        self, seed=None, iterations: int = 400, seconds: float | None = 0.5, clock=time.perf_counter, level=None
    ):
        if iterations < 1:
            raise ValueError("A searching bot needs at least one playout per decision.")
        if seconds is not None and seconds <= 0:
            raise ValueError("The time budget must be positive (or None for an iteration budget only).")
        self.seed = seed
        self.iterations = iterations
        self.seconds = seconds
        self.clock = clock
        if level is not None:
            self.level = level
        # The playout policy for every seat, and the tie-breaker at the root.
        self.policy = HeuristicBot(seed=seed)
        self.last_stats = None  # playouts and rounds of the last decision (tests, tuning)

    def __repr__(self):
        return f"SearchBot(seed={self.seed!r}, iterations={self.iterations}, seconds={self.seconds})"

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
        alive = list(legal)
        values = {a: [] for a in legal}
        playouts = rounds = 0
        clock = self.clock
        while playouts + len(alive) <= self.iterations:
            if deadline is not None and clock() >= deadline:
                break
            game = sampler.sample(rng)
            scores = []
            for action in alive:
                if deadline is not None and scores and clock() >= deadline:
                    break
                scores.append(self._playout(game.copy(), seat, action))
                playouts += 1
            if len(scores) < len(alive):
                break  # an unfinished round would favour the candidates tried first
            for action, score in zip(alive, scores):
                values[action].append(score)
            rounds += 1
            if rounds >= PRUNE_AFTER_ROUNDS and len(alive) > 1:
                alive = _prune(alive, values)
        self.last_stats = {"playouts": playouts, "rounds": rounds, "candidates": len(alive)}
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
        pool = self.pool[:]
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


def _transferrers(view: dict) -> list[int]:
    """Perevodnoy: the defenders this bout passed the defence on from (R22)."""
    table = view["table"]
    if not table or view["rules"]["variant"] != "perevodnoy":
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
