"""One game of Durak: the state, the legal actions and their effects.

The state is a handful of plain lists and sets, so that copying a position
(search clones millions) is a few list copies. Every rule is checked in one
place: `_refusal` for "may this action be taken?" and the `_do_*` methods for
what it does; `legal_actions` lists exactly the actions `_refusal` accepts.
"""

import json
import random

from .actions import ATTACK, DEFEND, PASS, SHOW, SWAP, TAKE, TRANSFER, Action, IllegalAction, parse_action
from .cards import BEATERS, RANK, SUIT, deck, is_card, sort_hand, strength
from .rules import BOUT_LIMIT, HAND_SIZE, Rules

PUBLIC = None  # an event whose details every seat and spectator may see


def event_for(event: dict, seat: int | None) -> dict:
    """The event as `seat` (None: a spectator) may see it: private card lists removed."""
    visible_to = event.get("visible_to")
    if visible_to is None or seat in visible_to or "cards" not in event:
        return event
    redacted = dict(event)
    del redacted["cards"]
    return redacted


class Game:
    __slots__ = (
        "rules",
        "n",
        "trump",
        "trump_card",
        "dealer",
        "hands",
        "stock",
        "discard_pile",
        "pairs",
        "attacker",
        "defender",
        "taking",
        "passed",
        "first_bout",
        "out",
        "left_before_bout",
        "known",
        "shown",
        "transferrers",
        "stock_touched",
        "over",
        "durak",
        "losers",
        "lowest_trump",
        "_teams",  # rules.team_of(s) for every seat: fixed per table, shared by copies
    )

    # ------------------------------------------------------------------ setup

    @classmethod
    def new(cls, rules: Rules, seed, dealer: int = 0) -> "Game":
        """Shuffle with `seed`, deal 6 each starting left of the dealer (R4, R5), apply R6."""
        if not 0 <= dealer < rules.players:
            raise ValueError(f"The dealer must be a seat from 0 to {rules.players - 1}.")
        cards = deck(rules.deck)
        random.Random(seed).shuffle(cards)
        n = rules.players
        hands = [[] for _ in range(n)]
        dealt = n * HAND_SIZE
        for i in range(dealt):
            hands[(dealer + 1 + i) % n].append(cards[i])
        rest = cards[dealt:]
        game = cls._blank(rules, dealer)
        game.hands = hands
        if rest:
            # R4: the next card is turned; it lies under the stock and is drawn last.
            game.trump_card = rest[0]
            game.stock = rest[1:] + rest[:1]
        else:
            # R5: the whole deck is dealt; the last card dealt (the dealer's) names
            # trump and stays public in his hand.
            game.trump_card = cards[dealt - 1]
            game.stock = []
            game.known[dealer].add(game.trump_card)
        game.trump = SUIT[game.trump_card]
        game._start_first_bout(None)
        return game

    @classmethod
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
    ) -> "Game":
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
        game = cls._blank(rules, dealer)
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

    @classmethod
    def _blank(cls, rules: Rules, dealer: int) -> "Game":
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
        game.shown = set()
        game.transferrers = set()
        game.stock_touched = False
        game.over = False
        game.durak = None
        game.losers = []
        game.lowest_trump = None
        return game

    def _start_first_bout(self, attacker: int | None):
        if attacker is None:
            attacker = self._r6_first_attacker()
        self.attacker = attacker
        self.defender = self._defender_for(attacker)

    def _r6_first_attacker(self) -> int:
        """R6: the lowest trump attacks first (and is shown); else left of the dealer."""
        best = None
        for seat, hand in enumerate(self.hands):
            if seat in self.out:
                continue
            for card in hand:
                if SUIT[card] == self.trump and (best is None or RANK[card] < RANK[best[1]]):
                    best = (seat, card)
        if best is None:
            return self._next_in_game(self.dealer)
        self.lowest_trump = best
        self.known[best[0]].add(best[1])
        return best[0]

    # ------------------------------------------------------------- read-only

    @property
    def trump_suit(self) -> str:
        return self.trump

    @property
    def table(self) -> list[tuple]:
        """The bout's cards as (attack_card, defence_card_or_None), in the order played."""
        return [(a, d) for a, d in self.pairs]

    def hand(self, seat: int) -> list[str]:
        return list(self.hands[seat])

    @property
    def stock_size(self) -> int:
        return len(self.stock)

    @property
    def discard_size(self) -> int:
        return len(self.discard_pile)

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def places(self) -> dict[int, int]:
        return dict(self.out)

    @property
    def attack_limit(self) -> int:
        """R12 (T2): the most attack cards this bout may hold."""
        return self.rules.first_bout_limit if self.first_bout else BOUT_LIMIT

    def uncovered(self) -> list[str]:
        return [a for a, d in self.pairs if d is None]

    def team(self, seat: int) -> list[int]:
        """The seats playing on `seat`'s side (R2, T4), itself included."""
        t = self.rules.team_of(seat)
        return [s for s in range(self.n) if self.rules.team_of(s) == t]

    def is_thrower(self, seat: int) -> bool:
        """R10, R15, T3: may `seat` add cards to this bout at all?"""
        if seat in self.out or not self.hands[seat] or seat == self.defender:
            return False
        teams = self._teams
        if teams[seat] == teams[self.defender]:
            return False
        if self.rules.throw_in == "neighbours" and seat != self.attacker and seat not in self.transferrers:
            return seat in (self._next_in_game(self.attacker), self._previous_in_game(self.attacker))
        return True

    def _open_throwers(self) -> list[int]:
        """The throwers (`is_thrower`) who have not passed, in seat order."""
        passed = self.passed
        if self.rules.throw_in == "neighbours":
            return [s for s in range(self.n) if s not in passed and self.is_thrower(s)]
        # Inlined is_thrower for the house rule: the defender shares his own team.
        out, hands, teams = self.out, self.hands, self._teams
        defending = teams[self.defender]
        return [s for s in range(self.n) if s not in passed and s not in out and hands[s] and teams[s] != defending]

    def to_move(self) -> list[int]:
        """The seats the game is waiting for (a turn timer runs for them).

        Other seats may hold optional actions (throwing in while the defender
        thinks, the trump six swap), but nothing waits on those.
        """
        if self.over:
            return []
        if not self.pairs:
            return [self.attacker]
        if not self.taking:
            for _, d in self.pairs:
                if d is None:
                    return [self.defender]
        return self._open_throwers()

    def timeout_action(self, seat: int) -> Action | None:
        """T7: what the server plays for a seat whose time ran out.

        An opener plays his lowest card, a defender takes, a thrower passes.
        """
        if seat not in self.to_move():
            return None
        if not self.pairs:
            return ATTACK[min(self.hands[seat], key=lambda c: strength(c, self.trump))]
        if seat == self.defender and not self.taking:
            return TAKE
        return PASS

    def legal_actions(self, seat: int) -> list[Action]:
        if self.over or (type(seat) is not int and (not isinstance(seat, int) or isinstance(seat, bool))):
            return []  # act refuses a bool seat too: True is not seat 1
        if not 0 <= seat < self.n or seat in self.out:
            return []
        hand = self.hands[seat]
        actions = []
        if self.rules.trump_six_swap:
            swap = self._swappable_six(seat)
            if swap is not None:
                actions.append(SWAP[swap])
        table = self.pairs
        if not table:
            if seat == self.attacker:
                actions.extend(map(ATTACK.__getitem__, hand))
            return actions
        if seat == self.defender:
            if self.taking:
                return actions
            beaters = BEATERS[self.trump]
            uncovered = 0
            for a, d in table:
                if d is None:
                    uncovered += 1
                    beats_a = beaters[a]
                    for c in hand:
                        if c in beats_a:
                            actions.append(DEFEND[a, c])
            if not uncovered:
                return actions
            # R22, R20: no transfer when no opponent is left to receive it.
            if uncovered == len(table) and self.rules.transfers and (next_defender := self._defender_for(seat)) != seat:
                rank = RANK[table[0][0]]
                receiver = len(self.hands[next_defender])
                if len(table) < self.attack_limit and receiver > len(table):
                    actions.extend(TRANSFER[c] for c in hand if RANK[c] == rank)
                if self.rules.trump_show_transfer and receiver >= len(table):
                    actions.extend(
                        SHOW[c] for c in hand if RANK[c] == rank and SUIT[c] == self.trump and c not in self.shown
                    )
            actions.append(TAKE)
            return actions
        if seat in self.passed or not self.is_thrower(seat):
            return actions
        ranks = set()
        uncovered = 0
        for a, d in table:
            ranks.add(RANK[a])
            if d is None:
                uncovered += 1
            else:
                ranks.add(RANK[d])
        limit = self.rules.first_bout_limit if self.first_bout else BOUT_LIMIT
        if len(table) < limit and uncovered < len(self.hands[self.defender]):
            actions.extend([ATTACK[c] for c in hand if RANK[c] in ranks])
        if self.taking or not uncovered:
            actions.append(PASS)
        return actions

    # ----------------------------------------------------------------- acting

    def act(self, seat: int, action) -> list[dict]:
        """Apply `action` for `seat` and return the events it caused.

        An action the rules refuse raises IllegalAction(reason) and changes nothing.
        """
        action = parse_action(action)
        refusal = self._refusal(seat, action)
        if refusal:
            raise IllegalAction(refusal)
        return self._EFFECTS[action.kind](self, seat, action)

    def _refusal(self, seat, action: Action) -> str | None:
        """Why `seat` may not take `action` now, or None if it may."""
        if self.over:
            return "The game is over."
        if type(seat) is not int and (not isinstance(seat, int) or isinstance(seat, bool)) or not 0 <= seat < self.n:
            return f"There is no seat {seat!r} at this table."
        if seat in self.out:
            return "You have left the game: you have no more moves."
        kind, card = action.kind, action.card
        hand = self.hands[seat]
        if card is not None and card not in hand:
            return f"You do not hold {card}."
        if kind == "swap":
            return self._swap_refusal(seat, card)
        table = self.pairs
        if kind == "attack":
            if not table:
                if seat != self.attacker:
                    return f"Only the attacker (seat {self.attacker}) plays the first card of a bout (R8)."
                return None
            if seat == self.defender:
                return "The defender cannot throw in to himself (R10)."
            if self._teams[seat] == self._teams[self.defender]:
                return "You cannot throw in to your own partner (R10)."
            if not self.is_thrower(seat):
                return "Only the attacker and his neighbours throw in at this table (T3)."
            if seat in self.passed:
                return "You have passed: you may add nothing until another card reaches the table (R15)."
            rank, on_table, uncovered = RANK[card], False, 0
            for a, d in table:
                if RANK[a] == rank:
                    on_table = True
                if d is None:
                    uncovered += 1
                elif RANK[d] == rank:
                    on_table = True
            if not on_table:
                return f"{card} cannot be thrown in: no card of its rank is on the table (R10)."
            if len(table) >= self.attack_limit:
                first = " in the first bout" if self.first_bout else ""
                return f"This bout already has {len(table)} attack cards, the most allowed{first} (R12)."
            if uncovered >= len(self.hands[self.defender]):
                return (
                    f"The defender holds {len(self.hands[self.defender])} cards: there may not be "
                    f"more uncovered cards than that (R11)."
                )
            return None
        if kind == "pass":
            if not table:
                return "The bout has not started: the attacker must play a card (R8)."
            if seat == self.defender:
                return "The defender does not pass: beat the cards or take them (R13)."
            if not self.is_thrower(seat):
                return "You are not throwing in to this bout."
            if seat in self.passed:
                return "You have already passed."
            if not self.taking:
                for _, d in table:
                    if d is None:
                        return "You may pass only when every card is covered or the defender has taken (R15)."
            return None
        # defend, transfer, show, take: the defender's actions
        if seat != self.defender:
            return f"Only the defender (seat {self.defender}) may {kind}."
        if not table:
            return "There is nothing on the table yet."
        if self.taking:
            return "You have already said you take the cards (R13)."
        uncovered = [a for a, d in table if d is None]
        if not uncovered:
            return "Every card is covered: wait for a throw-in or the end of the bout (R14)."
        if kind == "take":
            return None
        if kind == "defend":
            if action.target not in uncovered:
                return f"{action.target} is not an uncovered card on the table."
            if card not in BEATERS[self.trump][action.target]:
                return f"{card} does not beat {action.target} (R9)."
            return None
        # transfer or show (R22-R25, T5)
        if not self.rules.transfers:
            return "Transfers exist only in perevodnoy (R22)."
        if kind == "show" and not self.rules.trump_show_transfer:
            return "A trump cannot be shown instead of played to transfer (R25)."
        if len(uncovered) != len(table):
            return "You have already beaten a card: it is too late to transfer (R22)."
        if RANK[card] != RANK[table[0][0]]:
            return f"{card} does not match the rank of the attack cards (R22)."
        receiver = self._defender_for(seat)
        if receiver == seat:
            return "Nobody is left to pass the attack to: beat the cards or take them (R22, R20)."
        attack_cards = len(table) + (1 if kind == "transfer" else 0)
        if kind == "transfer" and attack_cards > self.attack_limit:
            return f"A transfer would make {attack_cards} attack cards, more than this bout allows (R23, R12)."
        if len(self.hands[receiver]) < attack_cards:
            return (
                f"Seat {receiver} holds only {len(self.hands[receiver])} cards, fewer than the "
                f"{attack_cards} attack cards a transfer would give him (R23)."
            )
        if kind == "show":
            if SUIT[card] != self.trump:
                return f"Only a trump can be shown to transfer (T5); {card} is not a trump."
            if card in self.shown:
                return f"{card} has already been shown in this bout."
        return None

    def _swappable_six(self, seat: int) -> str | None:
        if not self.rules.trump_six_swap or self.stock_touched or not self.stock:
            return None
        six = "6" + self.trump
        if six in self.hands[seat] and self.stock[-1] != six:
            return six
        return None

    def _swap_refusal(self, seat: int, card: str) -> str | None:
        if not self.rules.trump_six_swap:
            return "The trump six swap is not played at this table (T6)."
        if card != "6" + self.trump:
            return f"Only the trump six can be swapped for the face-up trump (T6), not {card}."
        if self.stock_touched or not self.stock:
            return "The stock has been touched: it is too late to swap the trump six (T6)."
        return None

    # -------------------------------------------------------- action effects

    def _play(self, seat: int, card: str, events: list):
        """Move `card` out of `seat`'s hand; R18: with the stock empty, no cards means out."""
        self.hands[seat].remove(card)
        self.known[seat].discard(card)
        if not self.hands[seat] and not self.stock:
            place = self.out[seat] = self.left_before_bout + 1
            events.append({"type": "left", "seat": seat, "place": place, "visible_to": PUBLIC})

    def _do_attack(self, seat, action):
        events = [{"type": "attack", "seat": seat, "card": action.card, "visible_to": PUBLIC}]
        self.pairs.append([action.card, None])
        self.passed.clear()  # R15: a new card withdraws all passes
        self._play(seat, action.card, events)
        self._settle(events)
        return events

    def _do_defend(self, seat, action):
        events = [{"type": "defend", "seat": seat, "card": action.card, "target": action.target, "visible_to": PUBLIC}]
        for pair in self.pairs:
            if pair[0] == action.target:
                pair[1] = action.card
                break
        self.passed.clear()
        self._play(seat, action.card, events)
        self._settle(events)
        return events

    def _do_transfer(self, seat, action):
        receiver = self._defender_for(seat)
        events = [{"type": "transfer", "seat": seat, "card": action.card, "defender": receiver, "visible_to": PUBLIC}]
        self.pairs.append([action.card, None])
        self._hand_over_defence(seat, receiver)
        self._play(seat, action.card, events)
        self._settle(events)
        return events

    def _do_show(self, seat, action):
        receiver = self._defender_for(seat)
        self.shown.add(action.card)
        self.known[seat].add(action.card)
        self._hand_over_defence(seat, receiver)
        events = [{"type": "show", "seat": seat, "card": action.card, "defender": receiver, "visible_to": PUBLIC}]
        self._settle(events)
        return events

    def _hand_over_defence(self, seat, receiver):
        """R22: the transferring player becomes an attacker, the next player defends."""
        self.transferrers.add(seat)
        self.defender = receiver
        self.passed.clear()

    def _do_take(self, seat, action):
        self.taking = True
        events = [{"type": "take", "seat": seat, "visible_to": PUBLIC}]
        self._settle(events)
        return events

    def _do_pass(self, seat, action):
        self.passed.add(seat)
        events = [{"type": "pass", "seat": seat, "visible_to": PUBLIC}]
        self._settle(events)
        return events

    def _do_swap(self, seat, action):
        face_up = self.stock[-1]
        hand = self.hands[seat]
        hand[hand.index(action.card)] = face_up
        self.known[seat].discard(action.card)
        self.known[seat].add(face_up)
        self.stock[-1] = action.card
        self.trump_card = action.card
        return [{"type": "swap", "seat": seat, "card": action.card, "took": face_up, "visible_to": PUBLIC}]

    # act() dispatches on Action.kind through this table.
    _EFFECTS = {
        "attack": _do_attack,
        "defend": _do_defend,
        "transfer": _do_transfer,
        "show": _do_show,
        "take": _do_take,
        "pass": _do_pass,
        "swap": _do_swap,
    }

    # ------------------------------------------------------- ending a bout

    def _settle(self, events: list):
        """End the bout if nothing more can happen in it (R13-R15, R18)."""
        table = self.pairs
        uncovered = 0
        for _, d in table:
            if d is None:
                uncovered += 1
        if uncovered and not self.taking:
            return
        limit = self.rules.first_bout_limit if self.first_bout else BOUT_LIMIT
        if len(table) < limit and uncovered < len(self.hands[self.defender]) and self._open_throwers():
            return
        self._end_bout(events)

    def _end_bout(self, events: list):
        cards = [c for pair in self.pairs for c in pair if c is not None]
        defender, took = self.defender, self.taking
        if took:
            self.hands[defender].extend(cards)
            self.known[defender].update(cards)
        else:
            self.discard_pile.extend(cards)
        events.append(
            {
                "type": "bout_end",
                "result": "pick_up" if took else "discard",
                "defender": defender,
                "cards": cards,
                "visible_to": PUBLIC,
            }
        )
        self.pairs = []
        self.taking = False
        self.passed = set()
        self.shown = set()
        self.transferrers = set()
        self.first_bout = False
        if self.stock:
            self._draw(events)
        if not self.stock:
            bout_place = self.left_before_bout + 1
            for s in range(self.n):
                if s not in self.out and not self.hands[s]:
                    self.out[s] = bout_place
                    events.append({"type": "left", "seat": s, "place": bout_place, "visible_to": PUBLIC})
        self.left_before_bout = len(self.out)
        holders = [s for s in range(self.n) if s not in self.out]
        if len(holders) <= 1 or len({self._teams[s] for s in holders}) == 1:
            self._finish(holders, events)
            return
        # R17: who beat everything attacks next; who took loses his turn.
        if took or defender in self.out:
            attacker = self._next_in_game(defender)
        else:
            attacker = defender
        self.attacker = attacker
        self.defender = self._defender_for(attacker)
        events.append({"type": "bout_start", "attacker": attacker, "defender": self.defender, "visible_to": PUBLIC})

    def _draw(self, events: list):
        """R16, R26: the opener first, clockwise, the (last) defender last."""
        self.stock_touched = True
        opener, last = self.attacker, self.defender
        start = opener if opener != last else (opener + 1) % self.n
        order = [(start + i) % self.n for i in range(self.n)]
        order = [s for s in order if s != last and s not in self.out] + [last]
        stock = self.stock
        for seat in order:
            need = HAND_SIZE - len(self.hands[seat])
            if need <= 0 or not stock:
                continue
            drawn = stock[:need]
            del stock[:need]
            self.hands[seat].extend(drawn)
            if not stock and self.trump_card in drawn:
                self.known[seat].add(self.trump_card)  # everyone saw the face-up trump taken
            events.append({"type": "draw", "seat": seat, "count": len(drawn), "cards": drawn, "visible_to": [seat]})

    def _finish(self, holders: list[int], events: list):
        """R20, R21: places, the durak, the losing side, or a draw."""
        last_place = len(self.out) + 1
        for s in holders:
            self.out[s] = last_place
        self.over = True
        if not holders:
            self.durak, self.losers = None, []
        else:
            self.durak = holders[0] if len(holders) == 1 else None
            self.losers = self.team(holders[0]) if self.rules.partners else list(holders)
        events.append(
            {
                "type": "game_over",
                "places": {str(s): p for s, p in sorted(self.out.items())},
                "durak": self.durak,
                "losers": list(self.losers),
                "draw": not holders,
                "visible_to": PUBLIC,
            }
        )

    # ----------------------------------------------------------- seating

    def _next_in_game(self, seat: int) -> int:
        n = self.n
        for i in range(1, n + 1):
            s = (seat + i) % n
            if s not in self.out:
                return s
        return seat

    def _previous_in_game(self, seat: int) -> int:
        n = self.n
        for i in range(1, n + 1):
            s = (seat - i) % n
            if s not in self.out:
                return s
        return seat

    def _defender_for(self, attacker: int) -> int:
        """R7: the next player after `attacker` who is not on his side."""
        n, teams, out = self.n, self._teams, self.out
        team = teams[attacker]
        for i in range(1, n):
            s = (attacker + i) % n
            if s not in out and teams[s] != team:
                return s
        return attacker

    # ---------------------------------------------------------------- views

    def view(self, seat: int | None) -> dict:
        """Everything `seat` may know and nothing else; None is a spectator."""
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < self.n):
            raise ValueError(f"There is no seat {seat!r} at this table.")
        to_move = self.to_move()
        seats = []
        for s in range(self.n):
            hand = self.hands[s]
            seats.append(
                {
                    "seat": s,
                    "cards": len(hand),
                    "known": sort_hand([c for c in self.known[s] if c in hand], self.trump),
                    "team": self.rules.team_of(s),
                    "place": self.out.get(s),
                    "in_game": s not in self.out,
                    "passed": s in self.passed,
                    "to_move": s in to_move,
                }
            )
        return {
            "seat": seat,
            "rules": self.rules.to_dict(),
            "trump": self.trump,
            "trump_card": self.trump_card,
            "trump_card_in_stock": bool(self.stock) and self.stock[-1] == self.trump_card,
            "stock_size": len(self.stock),
            "discard_size": len(self.discard_pile),
            "hand": sort_hand(self.hands[seat], self.trump) if seat is not None else None,
            "seats": seats,
            "table": [[a, d] for a, d in self.pairs],
            "attacker": self.attacker,
            "defender": self.defender,
            "taking": self.taking,
            "first_bout": self.first_bout,
            "attack_limit": self.attack_limit,
            "to_move": to_move,
            "legal_actions": [str(a) for a in self.legal_actions(seat)] if seat is not None else [],
            "lowest_trump": (
                {"seat": self.lowest_trump[0], "card": self.lowest_trump[1]} if self.lowest_trump else None
            ),
            "places": {str(s): p for s, p in sorted(self.out.items())},
            "is_over": self.over,
            "durak": self.durak,
            "losers": list(self.losers),
        }

    # ------------------------------------------------------ copy and JSON

    def copy(self) -> "Game":
        other = Game.__new__(Game)
        other.rules = self.rules
        other.n = self.n
        other._teams = self._teams
        other.trump = self.trump
        other.trump_card = self.trump_card
        other.dealer = self.dealer
        other.hands = [h[:] for h in self.hands]
        other.stock = self.stock[:]
        other.discard_pile = self.discard_pile[:]
        other.pairs = [p[:] for p in self.pairs]
        other.attacker = self.attacker
        other.defender = self.defender
        other.taking = self.taking
        other.passed = set(self.passed)
        other.first_bout = self.first_bout
        other.out = dict(self.out)
        other.left_before_bout = self.left_before_bout
        other.known = [set(k) for k in self.known]
        other.shown = set(self.shown)
        other.transferrers = set(self.transferrers)
        other.stock_touched = self.stock_touched
        other.over = self.over
        other.durak = self.durak
        other.losers = self.losers[:]
        other.lowest_trump = self.lowest_trump
        return other

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    def _state(self) -> dict:
        return {
            "rules": self.rules.to_dict(),
            "dealer": self.dealer,
            "trump": self.trump,
            "trump_card": self.trump_card,
            "hands": [list(h) for h in self.hands],
            "stock": list(self.stock),
            "discard": list(self.discard_pile),
            "table": [list(p) for p in self.pairs],
            "attacker": self.attacker,
            "defender": self.defender,
            "taking": self.taking,
            "passed": sorted(self.passed),
            "first_bout": self.first_bout,
            "places": sorted([s, p] for s, p in self.out.items()),
            "left_before_bout": self.left_before_bout,
            "known": [sorted(k) for k in self.known],
            "shown": sorted(self.shown),
            "transferrers": sorted(self.transferrers),
            "stock_touched": self.stock_touched,
            "over": self.over,
            "durak": self.durak,
            "losers": list(self.losers),
            "lowest_trump": list(self.lowest_trump) if self.lowest_trump else None,
        }

    def to_json(self) -> str:
        return json.dumps(self._state(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "Game":
        data = json.loads(text)
        game = cls._blank(Rules.from_dict(data["rules"]), data["dealer"])
        game.trump = data["trump"]
        game.trump_card = data["trump_card"]
        game.hands = [list(h) for h in data["hands"]]
        game.stock = list(data["stock"])
        game.discard_pile = list(data["discard"])
        game.pairs = [list(p) for p in data["table"]]
        game.attacker = data["attacker"]
        game.defender = data["defender"]
        game.taking = data["taking"]
        game.passed = set(data["passed"])
        game.first_bout = data["first_bout"]
        game.out = dict(data["places"])
        game.left_before_bout = data["left_before_bout"]
        game.known = [set(k) for k in data["known"]]
        game.shown = set(data["shown"])
        game.transferrers = set(data["transferrers"])
        game.stock_touched = data["stock_touched"]
        game.over = data["over"]
        game.durak = data["durak"]
        game.losers = list(data["losers"])
        game.lowest_trump = tuple(data["lowest_trump"]) if data["lowest_trump"] else None
        return game

    def __eq__(self, other):
        if not isinstance(other, Game):
            return NotImplemented
        return self._state() == other._state()

    __hash__ = None

    def __repr__(self):
        return (
            f"<Game {self.rules.variant} {self.n}p trump={self.trump} attacker={self.attacker} "
            f"defender={self.defender} table={self.pairs} over={self.over}>"
        )
