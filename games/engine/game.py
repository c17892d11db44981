"""One game of Durak: the state, the legal actions and their effects.

The state is a handful of plain lists and sets, so that copying a position
(search clones millions) is a few list copies. Every rule is checked in one
place: the refusal checks by action kind (`refusals.REFUSAL_CHECKS`) for
"may this action be taken?" and the `_do_*` methods (`_EFFECTS`) for what it
does; `legal_actions` lists exactly the actions the checks accept. Setting up
(`layout`, `deal`), copies and JSON (`serialization`) and what a seat sees
(`views`) live in their own modules.
"""

from . import layout, serialization, views
from .actions import ATTACK, DEFEND, PASS, SHOW, SWAP, TAKE, TRANSFER, Action, parse_action
from .cards import BEATERS, RANK, SUIT, strength
from .refusals import REFUSAL_CHECKS, common_refusal
from .rules import BOUT_LIMIT, HAND_SIZE
from .views import PUBLIC, event_for

__all__ = ["PUBLIC", "Game", "event_for"]


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
        "declined",  # per seat: attack cards it left unbeaten when it took, since it last drew (public)
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

    new = classmethod(layout.new)
    from_layout = classmethod(layout.from_layout)
    _blank = classmethod(layout.blank)

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

    def result(self) -> dict | None:
        """The outcome once the game is over (None before): R19-R21.

        {"places": {"0": 1, ...} (seat as text: JSON keys), "durak": seat or None,
        "losers": [seats], "draw": bool}; a draw has no durak and no losers.
        """
        if not self.over:
            return None
        return {
            "places": {str(s): p for s, p in sorted(self.out.items())},
            "durak": self.durak,
            "losers": list(self.losers),
            "draw": not self.losers,
        }

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

        An action the rules refuse raises IllegalAction (code, reason) and changes nothing.
        """
        action = parse_action(action)
        refusal = common_refusal(self, seat, action) or REFUSAL_CHECKS[action.kind](self, seat, action)
        if refusal is not None:
            raise refusal
        return self._EFFECTS[action.kind](self, seat, action)

    def _swappable_six(self, seat: int) -> str | None:
        if not self.rules.trump_six_swap or self.stock_touched or not self.stock:
            return None
        six = "6" + self.trump
        if six in self.hands[seat] and self.stock[-1] != six:
            return six
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
        # Public: everyone saw which cards the defender gave up on (views: "declined").
        self.declined[seat].extend(a for a, d in self.pairs if d is None)
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
            self.declined[seat].clear()  # unseen cards came in: what he lacked then says little now
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
        events.append({"type": "game_over", **self.result(), "visible_to": PUBLIC})

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

    # ------------------------------------------------ views, copies, JSON

    view = views.view
    copy = serialization.copy
    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    _state = serialization.state
    to_json = serialization.to_json
    from_json = classmethod(serialization.from_json)

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
