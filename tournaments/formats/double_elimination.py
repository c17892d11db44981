"""Double elimination at tables of 2 (a pair is one entrant in 2v2 events): out after the second lost match.

The rules (``docs/double-elimination.md`` words them for a director):

- **Winners' bracket.** Seeded as the knockout seeds it (``bracket_order``, 1 v 8, 4 v 5, 2 v 7, 3 v 6 in a
  bracket of eight, the better seed first at each table). A field that is not a power of two fills the
  bracket with byes for the top seeds; a bye is not a match: its side goes through and no loss is counted.
- **Losers' bracket.** The losers of winners' round 1 play each other (losers' round 1). Then every
  winners' round ``r >= 2`` drops its losers into a *drop round* (losers' round ``2r - 2``), each against a
  survivor of the losers' bracket, and between two drop rounds the survivors play each other (losers'
  round ``2r - 1``). The order in which the dropped sides meet the survivors crosses the bracket
  (``Bracket.drop_orders``), chosen round by round so that as few losers' matches as possible can be a
  rematch, the earliest rounds first (two sides can meet twice only if they met in the winners'
  bracket). No order of the drop rounds does better up to 16 entrants; a rematch first becomes
  possible in losers' round 2 (3-4 entrants), 3 (5-8), 4 (9-16), 5 (17-32), 7 (33-64).
- **Byes in the losers' bracket.** A losers' slot left empty by first-round byes gives the side
  opposite it a bye. Such byes fall only in losers' rounds 1 and 2. In round 1 they go to sides that
  played (and lost) round 1; in round 2 they are placed opposite the winners' matches with the fewest
  first-round byes, where a side that played round 1 may be the loser. So a side can get two byes
  only when the field fills less than three quarters of the bracket, and at most ``3 * size / 4 - n``
  sides do.
- **Grand final** between the winners' bracket winner (no loss) and the losers' bracket winner (one
  loss). **Bracket reset**: when the losers' side wins it, both have one loss and a second final
  (``GF2``) is played; its winner is the champion. Otherwise ``GF2`` is not needed.
- Every side but the champion ends with exactly two losses; the champion with none (no reset) or one
  (after a reset). So ``n`` entrants play ``2n - 2`` matches, or ``2n - 1`` after a reset.
- **Final order** (``double_elimination_order``): the champion, the runner-up (the last final's loser),
  then the rest by the losers' round they went out in, later first; those out in the same losers'
  round share the place. While the event runs, the sides still in come first, sharing a place.

Everything is a pure function of the bracket (``double_elimination_bracket``) and the results so far
(``{MatchId: winner}``): ``double_elimination_state`` says each match's sides, winner and status, which
matches are ready to play now, who is out and where, and the champion.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from .knockout import bracket_order
from .seating import check_entrants

#: The brackets, in the order they are drawn: winners', losers', grand final, bracket reset.
BRACKETS = ("W", "L", "GF", "GF2")

#: A match's ``status``: ``ready`` (both sides known, no winner yet), ``played`` (has its winner),
#: ``pending`` (a side is not known yet), ``bye`` (one side can never come: the other goes through
#: unplayed, as soon as it is known), ``empty`` (neither side can come: byes on both sides),
#: ``not_needed`` (the reset final after the winners' side won the grand final).
MATCH_STATUSES = frozenset({"ready", "played", "pending", "bye", "empty", "not_needed"})

#: Permutations tried for a drop round of more than ``ALL_ORDERS_UPTO`` matches (all of them below).
ALL_ORDERS_UPTO = 4


class MatchId(NamedTuple):
    """A match's place in the bracket: ``bracket`` in ``BRACKETS``, ``round`` and ``slot`` from 1 (top
    first). The grand final is ``("GF", 1, 1)``, the reset final ``("GF2", 1, 1)``. ``str()`` gives a
    short code (``W1.3``, ``L2.1``, ``GF``, ``GF2``) that ``MatchId.parse`` reads back."""

    bracket: str
    round: int
    slot: int

    def __str__(self) -> str:
        if self.bracket in ("GF", "GF2"):
            return self.bracket
        return f"{self.bracket}{self.round}.{self.slot}"

    @classmethod
    def parse(cls, code: str) -> MatchId:
        if code in ("GF", "GF2"):
            return cls(code, 1, 1)
        try:
            bracket, rest = code[:1], code[1:]
            number, slot = rest.split(".")
            match_id = cls(bracket, int(number), int(slot))
        except ValueError:
            raise ValueError(f"not a match code: {code!r}") from None
        if bracket not in ("W", "L") or match_id.round < 1 or match_id.slot < 1:
            raise ValueError(f"not a match code: {code!r}")
        return match_id


GRAND_FINAL = MatchId("GF", 1, 1)
RESET_FINAL = MatchId("GF2", 1, 1)


class Source(NamedTuple):
    """Where a side of a match comes from: ``entrant`` (``ref`` is the entrant, winners' round 1),
    ``winner`` / ``loser`` (``ref`` is the ``MatchId``), or ``none`` (a bye: nobody comes)."""

    kind: str
    ref: int | MatchId | None = None


NOBODY = Source("none")


@dataclass(frozen=True)
class Bracket:
    """The whole plan of an event, fixed once the field is seeded.

    ``entrants``: the field, best seed first. ``size``: the bracket's size, the power of two ``2**k`` at
    least ``len(entrants)`` (at least 2). ``plan``: every match's id and its two sides' sources, in an
    order in which they can be played (a match's sources come before it). ``drop_orders``: for each
    winners' round ``r >= 2``, the winners' match (slot) whose loser drops into each slot of losers'
    round ``2r - 2``.
    """

    entrants: tuple[int, ...]
    size: int
    plan: tuple[tuple[MatchId, tuple[Source, Source]], ...]
    drop_orders: dict[int, tuple[int, ...]]

    @property
    def rounds(self) -> int:
        """``k``: the winners' bracket has ``k`` rounds, the losers' bracket ``2k - 2``."""
        return self.size.bit_length() - 1

    def stage(self, match_id: MatchId) -> int:
        """How far a side went out in ``match_id``, for the standings (more is later, so ranks higher):
        losers' round ``r`` is ``r``; either final is ``2k - 1``, one more than the losers' final."""
        if match_id.bracket in ("GF", "GF2"):
            return 2 * self.rounds - 1
        if match_id.bracket != "L":
            raise ValueError(f"nobody goes out in the winners' bracket ({match_id})")
        return match_id.round

    @property
    def seed(self) -> dict[int, int]:
        """Entrant -> seed (1 is the best)."""
        return {entrant: rank for rank, entrant in enumerate(self.entrants, start=1)}


@dataclass(frozen=True)
class Match:
    """One match as the results so far leave it.

    ``sides``: the two sides as the bracket draws them (``None`` where not known yet, or where nobody
    can come): from the upper match, in the losers' bracket the survivor of the losers' bracket first, in
    the finals the winners' bracket's winner first. ``sources``: where each side comes from.
    ``table``: a ready or played match's table, the better seed first (as in a knockout); else empty.
    ``winner`` / ``loser``: after it is played (a bye has a winner and no loser).
    ``winner_to`` / ``loser_to``: the match each goes on to (``None``: out, or the champion).
    """

    id: MatchId
    sides: tuple[int | None, int | None]
    sources: tuple[Source, Source]
    status: str
    table: tuple[int, ...] = ()
    winner: int | None = None
    loser: int | None = None
    winner_to: MatchId | None = None
    loser_to: MatchId | None = None


@dataclass(frozen=True)
class BracketState:
    """The bracket after the results so far.

    ``matches``: every match, in plan order. ``ready``: the matches that can be played now (both sides
    known, no winner), in plan order; no entrant is in two of them. ``losses``: entrant -> lost matches
    (0, 1 or 2). ``byes``: entrant -> byes received. ``out_in``: entrant -> the match he went out in
    (his second loss). ``champion``: once the event is over (``finished``).
    """

    matches: dict[MatchId, Match]
    ready: list[Match]
    losses: dict[int, int]
    byes: dict[int, int]
    out_in: dict[int, MatchId]
    champion: int | None

    @property
    def finished(self) -> bool:
        return self.champion is not None

    @property
    def runner_up(self) -> int | None:
        """The loser of the last final, once the event is over."""
        if self.champion is None:
            return None
        last = self.matches[RESET_FINAL]
        return (last if last.status == "played" else self.matches[GRAND_FINAL]).loser

    def played(self) -> list[Match]:
        """The matches played so far, in plan order."""
        return [match for match in self.matches.values() if match.status == "played"]


@dataclass(frozen=True)
class BracketView:
    """What a bracket drawing needs: the winners' rounds, the losers' rounds (each a list of matches, top
    slot first) and the finals (the grand final, then the reset final while it may still be needed or
    once played)."""

    winners: list[list[Match]]
    losers: list[list[Match]]
    finals: list[Match]


# ------------------------------------------------------------------ the plan


def double_elimination_bracket(entrants: Sequence[int], *, seeds: Mapping[int, int] | None = None) -> Bracket:
    """The plan of a double elimination among ``entrants`` (at least two).

    Entrants rank by ``seeds`` (1 is the best; without a seed: after the seeded, in ``entrants`` order),
    as in ``knockout_round``. The same arguments give the same bracket.
    """
    entrants = list(entrants)
    check_entrants(entrants)
    if len(entrants) < 2:
        raise ValueError("a double elimination needs at least two entrants")
    seeds = seeds or {}
    position = {entrant: i for i, entrant in enumerate(entrants)}
    ranked = sorted(entrants, key=lambda e: (seeds.get(e) is None, seeds.get(e, 0), position[e]))
    n = len(ranked)
    k = max(1, (n - 1).bit_length())
    size = 1 << k

    plan: list[tuple[MatchId, tuple[Source, Source]]] = []
    slots = bracket_order(size)
    for j in range(size // 2):
        high, low = sorted(slots[2 * j : 2 * j + 2])
        plan.append((MatchId("W", 1, j + 1), (_entrant(ranked, high), _entrant(ranked, low))))
    first_round_byes = [int(low > n) for high, low in (sorted(slots[2 * j : 2 * j + 2]) for j in range(size // 2))]

    def winners(r: int, j: int) -> tuple[Source, Source]:
        return (Source("winner", MatchId("W", r - 1, 2 * j - 1)), Source("winner", MatchId("W", r - 1, 2 * j)))

    drop_orders = _drop_orders(k, first_round_byes)
    # Interleave the brackets so each match comes after its sources: W r, then the losers' rounds it feeds.
    for r in range(2, k + 1):
        plan.extend((MatchId("W", r, j), winners(r, j)) for j in range(1, (size >> r) + 1))
        if r == 2:
            plan.extend(
                (
                    MatchId("L", 1, j),
                    (Source("loser", MatchId("W", 1, 2 * j - 1)), Source("loser", MatchId("W", 1, 2 * j))),
                )
                for j in range(1, size // 4 + 1)
            )
        drop = 2 * r - 2
        plan.extend(
            (
                MatchId("L", drop, j),
                (Source("winner", MatchId("L", drop - 1, j)), Source("loser", MatchId("W", r, w))),
            )
            for j, w in enumerate(drop_orders[r], start=1)
        )
        if r < k:
            plan.extend(
                (
                    MatchId("L", drop + 1, j),
                    (Source("winner", MatchId("L", drop, 2 * j - 1)), Source("winner", MatchId("L", drop, 2 * j))),
                )
                for j in range(1, (size >> (r + 1)) + 1)
            )
    top = Source("winner", MatchId("W", k, 1))
    bottom = Source("winner", MatchId("L", 2 * k - 2, 1)) if k >= 2 else Source("loser", MatchId("W", 1, 1))
    plan.append((GRAND_FINAL, (top, bottom)))
    plan.append((RESET_FINAL, (Source("loser", GRAND_FINAL), Source("winner", GRAND_FINAL))))
    return Bracket(entrants=tuple(ranked), size=size, plan=tuple(plan), drop_orders=drop_orders)


def _entrant(ranked: list[int], seed: int) -> Source:
    return Source("entrant", ranked[seed - 1]) if seed <= len(ranked) else NOBODY


def _drop_orders(k: int, first_round_byes: list[int]) -> dict[int, tuple[int, ...]]:
    """For each winners' round ``r`` of 2..k, which winners' match drops its loser into each slot of the
    drop round, chosen so that two sides who may have met do not meet again for as long as the shape
    of the bracket allows.

    Two sides can only meet twice if the first meeting was in the winners' bracket (a losers' match
    puts its loser out). A side dropped from winners' round ``r``, match ``i``, has met only sides of
    the winners' subtree under that match, so it may meet again a side dropped earlier from inside that
    subtree. Each losers' slot carries the set of drops (round, match) that can reach it; for each drop
    round, in turn, the order is the one with the fewest such possible rematches in the drop round, then
    in the round after it, then (round 2 only) with the losers' slots left empty by byes facing the
    winners' matches with the fewest first-round byes, then the first in a fixed list of orders.
    """
    orders: dict[int, tuple[int, ...]] = {}
    if k < 2:
        return orders
    # Losers' round 1: slot j (0-based) holds the loser of winners' round 1, match 2j or 2j + 1.
    slots = [frozenset({(1, 2 * j), (1, 2 * j + 1)}) for j in range(1 << (k - 2))]
    empty = [first_round_byes[2 * j] and first_round_byes[2 * j + 1] for j in range(len(slots))]
    byes_under = [first_round_byes[2 * i] + first_round_byes[2 * i + 1] for i in range(len(slots))]
    for r in range(2, k + 1):
        m = len(slots)

        def cost(order, slots=slots, r=r):
            dropped = [slot | {(r, i)} for slot, i in zip(slots, order, strict=True)]
            now = sum(_may_rematch(slot, {(r, i)}) for slot, i in zip(slots, order, strict=True))
            after = sum(_may_rematch(dropped[2 * j], dropped[2 * j + 1]) for j in range(len(dropped) // 2))
            byes = sum(byes_under[i] for slot_empty, i in zip(empty, order, strict=True) if slot_empty) if r == 2 else 0
            return (now, after, byes)

        best = min(_candidate_orders(m), key=cost)
        orders[r] = tuple(i + 1 for i in best)
        dropped = [slot | {(r, i)} for slot, i in zip(slots, best, strict=True)]
        slots = [dropped[2 * j] | dropped[2 * j + 1] for j in range(m // 2)]
    return orders


def _may_rematch(one: frozenset | set, other: frozenset | set) -> bool:
    """Whether a side from ``one`` may meet a side from ``other`` it already met in the winners' bracket:
    one dropped from winners' round ``r``, match ``i``, the other earlier, from inside that match's subtree."""
    for r, i in one:
        for r2, i2 in other:
            if r != r2 and (i2 >> (r - r2) == i if r > r2 else i >> (r2 - r) == i2):
                return True
    return False


def _candidate_orders(m: int) -> list[tuple[int, ...]]:
    """Every order of a small drop round; for a larger one the orders that move whole blocks of the
    bracket (a shift, a swap of blocks by ``i ^ a``, each also reversed), which keep subtrees together."""
    if m <= ALL_ORDERS_UPTO:
        return list(itertools.permutations(range(m)))
    orders = []
    for a in range(m):
        for order in (tuple(i ^ a for i in range(m)), tuple((i + a) % m for i in range(m))):
            orders += [order, order[::-1]]
    return list(dict.fromkeys(orders))


# ------------------------------------------------------------------ the state


def double_elimination_state(bracket: Bracket, results: Mapping[MatchId | tuple | str, int]) -> BracketState:
    """The bracket after ``results``: each played match's id (a ``MatchId``, a plain
    ``(bracket, round, slot)`` tuple or its code such as ``"L2.1"``) -> its winner.

    Bad results are refused with ``ValueError`` (and nothing is computed): a result for a match that is
    unknown, not ready (a side not known yet, a bye, the reset final when it is not needed), or whose
    winner is not one of its sides.
    """
    results = {_match_id(key): winner for key, winner in results.items()}
    plan_ids = {match_id for match_id, _ in bracket.plan}
    unknown = [key for key in results if key not in plan_ids]
    if unknown:
        raise ValueError(f"no such match in this bracket: {', '.join(map(str, unknown))}")

    winner_to: dict[MatchId, MatchId] = {}
    loser_to: dict[MatchId, MatchId] = {}
    for match_id, sources in bracket.plan:
        for source in sources:
            if source.kind == "winner" and match_id != RESET_FINAL:
                winner_to[source.ref] = match_id
            elif source.kind == "loser" and match_id != RESET_FINAL:
                loser_to[source.ref] = match_id

    # A side's value: an entrant, None (not known yet) or NOBODY (can never come).
    won: dict[MatchId, object] = {}
    lost: dict[MatchId, object] = {}
    matches: dict[MatchId, Match] = {}
    losses = dict.fromkeys(bracket.entrants, 0)
    byes = dict.fromkeys(bracket.entrants, 0)
    out_in: dict[int, MatchId] = {}
    seed = bracket.seed

    def side(source: Source):
        if source.kind == "entrant":
            return source.ref
        if source.kind == "winner":
            return won.get(source.ref)
        if source.kind == "loser":
            return lost.get(source.ref)
        return NOBODY

    for match_id, sources in bracket.plan:
        a, b = side(sources[0]), side(sources[1])
        winner = loser = None
        if match_id == RESET_FINAL and matches[GRAND_FINAL].winner not in (None, matches[GRAND_FINAL].sides[1]):
            # The winners' side won the grand final: the losers' side has its second loss, no reset.
            a = b = None
            status = "not_needed"
        elif a is NOBODY and b is NOBODY:
            status = "empty"
            won[match_id] = lost[match_id] = NOBODY
        elif a is NOBODY or b is NOBODY:
            status = "bye"
            through = b if a is NOBODY else a
            lost[match_id] = NOBODY
            if through is not None:
                winner = won[match_id] = through
                byes[through] += 1
        elif a is None or b is None:
            status = "pending"
        elif match_id in results:
            winner = results[match_id]
            if winner not in (a, b):
                raise ValueError(f"{winner!r} is not a side of match {match_id}")
            loser = b if winner == a else a
            status = "played"
            won[match_id], lost[match_id] = winner, loser
            losses[loser] += 1
            if losses[loser] == 2:
                out_in[loser] = match_id
        else:
            status = "ready"
        if match_id in results and status != "played":
            raise ValueError(f"match {match_id} cannot have a result: it is {status.replace('_', ' ')}")
        matches[match_id] = Match(
            id=match_id,
            sides=(_shown(a), _shown(b)),
            sources=sources,
            status=status,
            table=tuple(sorted((a, b), key=seed.__getitem__)) if status in ("ready", "played") else (),
            winner=winner,
            loser=loser,
            winner_to=winner_to.get(match_id) if status != "empty" else None,
            loser_to=loser_to.get(match_id) if status not in ("empty", "bye") else None,
        )
    if matches[GRAND_FINAL].status == "played" and matches[GRAND_FINAL].winner == matches[GRAND_FINAL].sides[1]:
        # A reset: the grand final's winner goes on to the second final, and so does its loser.
        grand = matches[GRAND_FINAL]
        matches[GRAND_FINAL] = replace(grand, winner_to=RESET_FINAL, loser_to=RESET_FINAL)
    champion = None
    reset = matches[RESET_FINAL]
    if reset.status == "played":
        champion = reset.winner
    elif reset.status == "not_needed":
        champion = matches[GRAND_FINAL].winner
    ready = [match for match in matches.values() if match.status == "ready"]
    return BracketState(matches=matches, ready=ready, losses=losses, byes=byes, out_in=out_in, champion=champion)


def _match_id(key) -> MatchId:
    if isinstance(key, str):
        return MatchId.parse(key)
    try:
        return MatchId(*key)
    except TypeError:
        raise ValueError(f"not a match: {key!r}") from None


def _shown(value) -> int | None:
    return None if value is NOBODY else value


# ------------------------------------------------------------------ order and view


def double_elimination_order(bracket: Bracket, results: Mapping[MatchId | tuple | str, int]) -> list[list[int]]:
    """The standings by round reached, as groups sharing a place, best first.

    Over: ``[[champion], [runner-up], ...]`` then the sides out in each losers' round, the latest round
    first (``Bracket.stage``); a group holds every side out in the same losers' round, in seed order.
    While it runs: first everyone still in (one group), then the sides out, as above.
    """
    state = double_elimination_state(bracket, results)
    still_in = [entrant for entrant in bracket.entrants if entrant not in state.out_in]
    by_stage: dict[int, list[int]] = {}
    for entrant in bracket.entrants:
        if entrant in state.out_in:
            by_stage.setdefault(bracket.stage(state.out_in[entrant]), []).append(entrant)
    return [still_in] + [by_stage[stage] for stage in sorted(by_stage, reverse=True)]


def places(order: Sequence[Sequence[int]]) -> dict[int, int]:
    """Entrant -> place from groups sharing a place: ``[[a], [b], [c, d], [e]]`` gives 1, 2, 3, 3, 5."""
    result = {}
    place = 1
    for group in order:
        for entrant in group:
            result[entrant] = place
        place += len(group)
    return result


def double_elimination_view(bracket: Bracket, results: Mapping[MatchId | tuple | str, int]) -> BracketView:
    """The bracket as columns for a drawing (see ``BracketView``); every slot is kept, byes and empty
    slots included (``Match.status`` says which), so each column keeps its shape."""
    state = double_elimination_state(bracket, results)
    winners: dict[int, list[Match]] = {}
    losers: dict[int, list[Match]] = {}
    finals = []
    for match in state.matches.values():
        if match.id.bracket == "W":
            winners.setdefault(match.id.round, []).append(match)
        elif match.id.bracket == "L":
            losers.setdefault(match.id.round, []).append(match)
        elif match.status != "not_needed":
            finals.append(match)
    return BracketView(
        winners=[winners[r] for r in sorted(winners)],
        losers=[losers[r] for r in sorted(losers)],
        finals=finals,
    )
