"""The seating search the formats share.

Tables are filled greedily in preference order (score order for Swiss), each next seat going to the
first entrant within a window who has met none of those already chosen; swaps between tables then
remove what repeats are left, and a bounded exact search re-seats a few tables around any repeat that
survives. Swiss then optimises the whole cost (``seat(..., whole_cost=True)``): small fields take the
exact least-cost seating (branch and bound), and swaps between tables go on lowering the cost (the
score spread within tables too, also when nothing repeats) until no single swap helps. Costs are
lexicographic in practice: a repeated pair outweighs any number of extra earlier meetings, which
outweigh any score spread.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from itertools import combinations

from .seating import add_round

REPEAT = 1_000_000.0  # one pair of table-mates who met before
MEETING = 1_000.0  # times the square of their earlier meetings: a third meeting costs more than two seconds
SPREAD = 10.0  # a table's score spread, scaled so the widest possible spread costs this much


ACCEPT_STEPS = 1_500  # what one look at a finished seating may cost (the budget of a look ahead)
POLISH_STEPS = 400_000  # swaps the whole-cost polish may look at (about a second of one core at 1,024 entrants)
CHEAPEST_UPTO = 12  # fields up to this size get the exact least-cost seating (12 at tables of 3: 15,400 seatings)
CHEAPEST_STEPS = 60_000


class BudgetSpent(Exception):
    pass


class Seater:
    """Seats entrants given who met whom (``met[a][b]`` earlier meetings) and their scores."""

    def __init__(self, met: dict[int, dict[int, int]], score: dict[int, float], order: list[int]):
        self.met = met
        self.score = score
        self.position = {entrant: i for i, entrant in enumerate(order)}
        values = [score[e] for e in order]
        low, high = (min(values), max(values)) if values else (0.0, 0.0)
        self.spread_scale = SPREAD / (high - low) if high > low else 0.0
        self.spent = 0  # steps of exact search so far
        most = max((times for mates in met.values() for times in mates.values()), default=0)
        # What seating two entrants who met ``times`` before costs. Repeated pairs are counted first (a
        # round robin needs every round to bring as many new pairs as it can; tried: costs growing
        # with the square of the meetings spread them more evenly but needed more rounds).
        self.pair_cost = [0.0] + [REPEAT + MEETING * times * times for times in range(1, most + 2)]

    # costs

    def mate_cost(self, entrant: int, mates) -> float:
        met_entrant = self.met.get(entrant)
        if not met_entrant:
            return 0.0
        cost = 0.0
        for mate in mates:
            times = met_entrant.get(mate)
            if times:
                cost += self.pair_cost[times]
        return cost

    def table_cost(self, table: list[int]) -> float:
        cost = 0.0
        for i in range(len(table) - 1):
            cost += self.mate_cost(table[i], table[i + 1 :])
        if self.spread_scale:
            values = [self.score[e] for e in table]
            cost += (max(values) - min(values)) * self.spread_scale
        return cost

    def evaluate(self, tables: list[list[int]]) -> tuple[float, float, float]:
        """(repeated pairs, sum of squared earlier meetings of table-mates, total score spread)."""
        repeats = squares = 0
        spread = 0.0
        for table in tables:
            for i, a in enumerate(table):
                met_a = self.met.get(a)
                if met_a:
                    for b in table[i + 1 :]:
                        times = met_a.get(b)
                        if times:
                            repeats += 1
                            squares += times * times
            values = [self.score[e] for e in table]
            spread += max(values) - min(values)
        return repeats, squares, spread

    # greedy

    def greedy(self, order: list[int], sizes: list[int], window: int) -> list[list[int]]:
        remaining = list(order)
        tables = []
        for size in sizes:
            chosen = [remaining.pop(0)]
            while len(chosen) < size:
                best_i, best_cost = 0, None
                for i in range(min(window, len(remaining))):
                    cost = self.mate_cost(remaining[i], chosen)
                    if not cost:
                        best_i = i
                        break
                    if best_cost is None or cost < best_cost:
                        best_i, best_cost = i, cost
                chosen.append(remaining.pop(best_i))
            tables.append(chosen)
        return tables

    # local search

    def improve(self, tables: list[list[int]], reach: int, passes: int = 20) -> None:
        """Swap entrants between tables (within ``reach`` tables of each other) while it lowers the cost."""
        costs = [self.table_cost(t) for t in tables]
        count = len(tables)
        for _ in range(passes):
            changed = False
            for ti in range(count):
                if costs[ti] < REPEAT:
                    continue
                table = tables[ti]
                for ai in range(len(table)):
                    a = table[ai]
                    rest = table[:ai] + table[ai + 1 :]
                    if not self.mate_cost(a, rest):
                        continue
                    a_cost = self.mate_cost(a, rest)
                    met_a = self.met.get(a, {})
                    score = self.score
                    scale = self.spread_scale
                    if scale:
                        rest_scores = [score[e] for e in rest]
                        old_spread = (max(*rest_scores, score[a]) - min(*rest_scores, score[a])) * scale
                    best = None
                    best_delta = -1e-9
                    for tj in range(max(0, ti - reach), min(count, ti + reach + 1)):
                        if tj == ti:
                            continue
                        other = tables[tj]
                        a_other = self.mate_cost(a, other)
                        if scale:
                            other_scores = [score[e] for e in other]
                            other_spread = (max(other_scores) - min(other_scores)) * scale
                        for ci, c in enumerate(other):
                            times = met_a.get(c)
                            a_with_c = self.pair_cost[times] if times else 0.0
                            delta = self.mate_cost(c, rest) - a_cost + a_other - a_with_c - self.mate_cost(c, other)
                            if scale:
                                moved = [*other_scores[:ci], score[a], *other_scores[ci + 1 :]]
                                delta += (max(*rest_scores, score[c]) - min(*rest_scores, score[c])) * scale
                                delta += (max(moved) - min(moved)) * scale - old_spread - other_spread
                            if delta < best_delta:
                                new_table = table[:ai] + [c] + table[ai + 1 :]
                                new_other = other[:ci] + [a] + other[ci + 1 :]
                                best, best_delta = (tj, ci, new_table, new_other), delta
                    if best is not None:
                        tj, ci, new_table, new_other = best
                        tables[ti], tables[tj] = new_table, new_other
                        table = new_table
                        costs[ti], costs[tj] = self.table_cost(new_table), self.table_cost(new_other)
                        changed = True
                        if costs[ti] < REPEAT:
                            break
            if not changed:
                return

    # exact search

    def exact(
        self, order: list[int], sizes: list[int], budget: int, accept: Callable[[list[list[int]]], bool] | None = None
    ) -> list[list[int]] | None:
        """Tables of the given sizes with no repeated pair, the earliest in ``order`` first; None when
        there is none or ``budget`` search steps do not find one. With ``accept``, the first such
        seating it accepts (each call costs the budget ``ACCEPT_STEPS`` steps). Steps add to ``spent``."""
        n = len(order)
        if sum(sizes) != n:
            raise ValueError("the tables must seat everyone")
        index = {entrant: i for i, entrant in enumerate(order)}
        # Bit j of clash[i]: the i-th and the j-th in order met before.
        clash = [0] * n
        for i, entrant in enumerate(order):
            for mate in self.met.get(entrant, ()):
                j = index.get(mate)
                if j is not None:
                    clash[i] |= 1 << j
        left = Counter(sizes)
        tables: list[list[int]] = []
        steps = 0

        def start_table(free: int) -> bool:
            nonlocal steps
            if not free:
                if accept is None:
                    return True
                steps += ACCEPT_STEPS
                if steps > budget:
                    raise BudgetSpent
                return accept([[order[i] for i in table] for table in tables])
            first_bit = free & -free
            first = first_bit.bit_length() - 1
            free ^= first_bit
            for size in sorted((s for s, c in left.items() if c), reverse=True):
                left[size] -= 1
                found = extend([first], size, free, free & ~clash[first])
                left[size] += 1
                if found:
                    return True
            return False

        def extend(table: list[int], size: int, free: int, candidates: int) -> bool:
            # candidates: free entrants later in order than the table's last who met nobody at it.
            nonlocal steps
            if len(table) == size:
                tables.append(table)
                if start_table(free):
                    return True
                tables.pop()
                return False
            need = size - len(table)
            while candidates.bit_count() >= need:
                bit = candidates & -candidates
                candidates ^= bit
                steps += 1
                if steps > budget:
                    raise BudgetSpent
                j = bit.bit_length() - 1
                if extend([*table, j], size, free ^ bit, candidates & ~clash[j]):
                    return True
            return False

        try:
            found = start_table((1 << n) - 1)
        except BudgetSpent:
            found = False
        finally:
            self.spent += steps
        if not found:
            return None
        return [[order[i] for i in table] for table in tables]

    def kick(self, tables: list[list[int]], reach: int, kicks: int) -> list[list[int]]:
        """Escape a local minimum: swap one entrant of a table with a repeat at random (seeded, so the
        same every time) with an entrant of a nearby table, improve again, keep the result unless worse."""
        rng = random.Random(len(tables))
        best, best_key = tables, self.evaluate(tables)
        current = [list(t) for t in tables]
        count = len(current)
        for _ in range(kicks):
            troubled = [ti for ti, table in enumerate(current) if self.table_cost(table) >= REPEAT]
            if not troubled:
                break
            ti = rng.choice(troubled)
            tj = rng.choice([t for t in range(max(0, ti - reach), min(count, ti + reach + 1)) if t != ti] or [ti])
            ai, ci = rng.randrange(len(current[ti])), rng.randrange(len(current[tj]))
            current[ti][ai], current[tj][ci] = current[tj][ci], current[ti][ai]
            self.improve(current, reach)
            key = self.evaluate(current)
            if key <= best_key:
                best, best_key = [list(t) for t in current], key
            else:
                current = [list(t) for t in best]
        return best

    # the whole cost

    def total(self, tables: list[list[int]]) -> float:
        return sum(self.table_cost(table) for table in tables)

    def polish(self, tables: list[list[int]], reach: int, steps: int = POLISH_STEPS) -> int:
        """Swap two entrants of different tables (within ``reach`` tables of each other) whenever the
        swap lowers the whole cost (repeats, then earlier meetings, then the score spread of both
        tables), until no single swap helps or ``steps`` swaps have been looked at. Works on every
        table, also when nothing repeats. Returns the swaps looked at (deterministic: no clock)."""
        count = len(tables)
        score = self.score
        costs = [self.table_cost(t) for t in tables]
        looked = 0
        changed = True
        while changed and looked < steps:
            changed = False
            for ti in range(count):
                for tj in range(ti + 1, min(count, ti + reach + 1)):
                    table, other = tables[ti], tables[tj]
                    clean = costs[ti] < MEETING and costs[tj] < MEETING  # only the spread can get better
                    if clean and not self.spread_scale:
                        continue
                    if clean:
                        values, other_values = [score[e] for e in table], [score[e] for e in other]
                        if max(values) <= min(other_values) or min(values) >= max(other_values):
                            continue  # the two tables' scores do not overlap: no swap narrows both
                    for ai in range(len(table)):
                        for ci in range(len(other)):
                            a, c = table[ai], other[ci]
                            if clean and score[a] == score[c]:
                                continue
                            looked += 1
                            new_table = table[:ai] + [c] + table[ai + 1 :]
                            new_other = other[:ci] + [a] + other[ci + 1 :]
                            new_i, new_j = self.table_cost(new_table), self.table_cost(new_other)
                            delta = new_i + new_j - costs[ti] - costs[tj]
                            # Equal cost: a swap that draws the tables' scores closer to their
                            # means is taken too, so a table whose spread two entrants hold
                            # (5, 5, 3, 3) can lose one now and the other next.
                            if delta < -1e-9 or (
                                delta < 1e-9
                                and self.scatter(new_table) + self.scatter(new_other)
                                < self.scatter(table) + self.scatter(other) - 1e-9
                            ):
                                tables[ti], tables[tj] = table, other = new_table, new_other
                                costs[ti], costs[tj] = new_i, new_j
                                changed = True
                    if looked >= steps:
                        return looked
        return looked

    def scatter(self, table: list[int]) -> float:
        """The sum of squared distances of the table's scores from their mean."""
        values = [self.score[e] for e in table]
        mean = sum(values) / len(values)
        return sum((v - mean) * (v - mean) for v in values)

    def cheapest(self, order: list[int], sizes: list[int], budget: int = CHEAPEST_STEPS) -> list[list[int]] | None:
        """The seating of least whole cost by branch and bound over every seating (small fields);
        None when ``budget`` steps do not finish the search."""
        best: list = [None, float("inf")]
        steps = 0
        left = Counter(sizes)

        def place(free: list[int], tables: list[list[int]], cost: float) -> None:
            nonlocal steps
            if not free:
                if cost < best[1] - 1e-9:
                    best[0], best[1] = [list(t) for t in tables], cost
                return
            first, rest = free[0], free[1:]
            for size in sorted((s for s, c in left.items() if c), reverse=True):
                left[size] -= 1
                for mates in combinations(rest, size - 1):
                    steps += 1
                    if steps > budget:
                        raise BudgetSpent
                    table = [first, *mates]
                    table_cost = cost + self.table_cost(table)
                    if table_cost < best[1] - 1e-9:
                        chosen = set(mates)
                        tables.append(table)
                        place([e for e in rest if e not in chosen], tables, table_cost)
                        tables.pop()
                left[size] += 1

        try:
            place(list(order), [], 0.0)
        except BudgetSpent:
            return None
        return best[0]

    def clean_seatings(self, order: list[int], sizes: list[int], budget: int = CHEAPEST_STEPS) -> list[list[list[int]]]:
        """Every seating without a repeated pair, cheapest first (small fields; [] past ``budget`` steps)."""
        found: list[tuple[float, list[list[int]]]] = []
        steps = 0
        left = Counter(sizes)

        def place(free: list[int], tables: list[list[int]], cost: float) -> None:
            nonlocal steps
            if not free:
                found.append((cost, [list(t) for t in tables]))
                return
            first, rest = free[0], free[1:]
            for size in sorted((s for s, c in left.items() if c), reverse=True):
                left[size] -= 1
                for mates in combinations(rest, size - 1):
                    steps += 1
                    if steps > budget:
                        raise BudgetSpent
                    table = [first, *mates]
                    table_cost = self.table_cost(table)
                    if table_cost < MEETING:
                        chosen = set(mates)
                        tables.append(table)
                        place([e for e in rest if e not in chosen], tables, cost + table_cost)
                        tables.pop()
                left[size] += 1

        try:
            place(list(order), [], 0.0)
        except BudgetSpent:
            return []
        found.sort(key=lambda item: item[0])
        return [tables for _, tables in found]

    def with_round(self, tables: list[list[int]]) -> Seater:
        """The same entrants once ``tables`` have been played too."""
        met = {entrant: dict(mates) for entrant, mates in self.met.items()}
        add_round(met, tables)
        order = sorted(self.position, key=self.position.__getitem__)
        return Seater(met, self.score, order)

    def repair(self, tables: list[list[int]], budget: int) -> None:
        """Re-seat the tables around each table that still has a repeat with the exact search, wider
        and wider, within ``budget`` steps in all; stops when the whole field has no seating without."""
        count = len(tables)
        limit = self.spent + budget
        for ti in range(count):
            if self.table_cost(tables[ti]) < REPEAT:
                continue
            for span in (1, 2, 4, 8, count):
                if self.spent >= limit:
                    return
                low, high = max(0, ti - span), min(count, ti + span + 1)
                region = sorted((e for t in tables[low:high] for e in t), key=self.position.__getitem__)
                found = self.exact(region, [len(t) for t in tables[low:high]], limit - self.spent)
                if found is not None:
                    tables[low:high] = found
                    break
                if high - low == count:
                    return


def seat(
    order: list[int],
    sizes: list[int],
    met: dict[int, dict[int, int]],
    score: dict[int, float],
    *,
    windows: tuple[int, ...] = (4, 16),
    reach: int = 12,
    budget: int = 100_000,
    kicks: int = 12,
    whole_cost: bool = False,
) -> list[list[int]]:
    """The best of a few candidate seatings of ``order`` (preference order) at tables of ``sizes``.

    With ``whole_cost`` (Swiss) the result is then improved on the whole cost, not only on repeats:
    fields of up to ``CHEAPEST_UPTO`` take the exact least-cost seating, and every field is polished
    by swaps between tables until no single swap lowers the cost (or ``POLISH_STEPS`` are spent)."""
    seater = Seater(met, score, order)
    candidates = []
    for window in windows:
        tables = seater.greedy(order, sizes, window)
        if seater.evaluate(tables)[0]:
            seater.improve(tables, reach)
        candidates.append(tables)
        if not seater.evaluate(tables)[0]:
            break
    if seater.evaluate(candidates[-1])[0]:
        # Seating from the bottom up puts the leftovers of the greedy fill at the top instead.
        tables = seater.greedy(order[::-1], sizes[::-1], windows[0])[::-1]
        seater.improve(tables, reach)
        candidates.append(tables)
    best = min(candidates, key=seater.evaluate)
    if seater.evaluate(best)[0] and budget:
        seater.repair(best, budget)
        seater.improve(best, len(best))
    if seater.evaluate(best)[0] and kicks:
        best = seater.kick(best, reach, kicks)
    if whole_cost:
        if len(order) <= CHEAPEST_UPTO:
            cheapest = seater.cheapest(order, sizes)
            if cheapest is not None and seater.total(cheapest) < seater.total(best):
                best = cheapest
        seater.polish(best, reach)
    return best
