"""Seating with groups kept apart: entrants of one group (a club's players in a club battle)
never share a table while that is possible, and as rarely as possible when it is not.

A group of ``s`` entrants over ``T`` tables cannot do better than spreading evenly: ``s mod T``
tables hold ``s // T + 1`` of them and the rest ``s // T``; ``fewest_group_pairs`` counts the
pairs that leaves, and the seating reaches it for every group at once (so a group of ``s <= T``
never sits together).

Two starting seatings are tried and the better kept:

- **dealt**: the groups, biggest first, dealt one entrant a table round the tables in turn
  (entrant ``i`` of that sequence at table ``i mod T`` while tables are balanced). Each group is a
  run of consecutive entrants of the sequence, so it lands on as many different tables as it can:
  the fewest group pairs there are.
- **cut**: tables cut from the preference order (score order in a Swiss, points in an arena), as
  the formats seat without groups, so close scores sit together.

Each is then repaired by swaps between tables while a swap lowers the cost, which is lexicographic:
a pair of one group outweighs any number of table-mates who met before (``met``), which outweigh
any score spread. So over the rounds a group's entrants meet players they have not met yet, and
within that a table holds scores as close as the groups allow. Pure and deterministic: the same
arguments give the same tables.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

GROUP = 1e12  # one pair of one group at a table
REPEAT = 1e6  # one pair of table-mates who met before
MEETING = 1e3  # times the square of their earlier meetings
SPREAD = 10.0  # the widest score spread at one table
#: Passes over all tables; each pass ends when no swap helps (a swap only ever lowers the cost).
PASSES = 6
#: Tables on either side a troubled table looks at first; the whole field when none of those helps.
REACH = 8


def group_pairs(tables: Sequence[Sequence[int]], group: Mapping[int, Hashable]) -> int:
    """Pairs of entrants of one group sharing a table (an entrant without a group has none)."""
    pairs = 0
    for table in tables:
        keys = [group.get(e) for e in table]
        for i, key in enumerate(keys):
            if key is not None:
                pairs += sum(1 for other in keys[i + 1 :] if other == key)
    return pairs


def fewest_group_pairs(group_sizes: Sequence[int], tables: int) -> int:
    """The fewest pairs of one group at a table that ``tables`` tables allow (each group spread evenly)."""
    if tables <= 0:
        return 0
    fewest = 0
    for size in group_sizes:
        per_table, more = divmod(size, tables)
        fewest += more * (per_table + 1) * per_table // 2 + (tables - more) * per_table * (per_table - 1) // 2
    return fewest


def seat_apart(
    order: Sequence[int],
    sizes: Sequence[int],
    group: Mapping[int, Hashable],
    met: Mapping[int, Mapping[int, int]] | None = None,
    score: Mapping[int, float] | None = None,
) -> list[list[int]]:
    """Tables of ``sizes`` (they seat all of ``order``, the preference order) with the groups of
    ``group`` apart (module docstring); ``met[a][b]``: earlier meetings, ``score``: for the spread."""
    if sum(sizes) != len(order):
        raise ValueError("the tables must seat every entrant")
    if len(set(order)) != len(order):
        raise ValueError("an entrant appears twice")
    if not sizes:
        return []
    seater = _Apart(order, group, met or {}, score or {})
    best = None
    for start in (_cut(order, sizes), _dealt(order, sizes, group)):
        seater.repair(start)
        key = seater.key(start)
        if best is None or key < best[0]:
            best = (key, start)
    return best[1]


def _cut(order: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    tables, start = [], 0
    for size in sizes:
        tables.append(list(order[start : start + size]))
        start += size
    return tables


def _dealt(order: Sequence[int], sizes: Sequence[int], group: Mapping[int, Hashable]) -> list[list[int]]:
    """The groups, biggest first (then by their first entrant in ``order``), one entrant a table in turn."""
    members: dict[Hashable, list[int]] = {}
    for position, entrant in enumerate(order):
        key = group.get(entrant)
        members.setdefault(("group", key) if key is not None else ("alone", position), []).append(entrant)
    sequence = [e for _key, run in sorted(members.items(), key=lambda item: -len(item[1])) for e in run]
    tables: list[list[int]] = [[] for _ in sizes]
    at = 0
    for entrant in sequence:
        while len(tables[at]) >= sizes[at]:
            at = (at + 1) % len(sizes)
        tables[at].append(entrant)
        at = (at + 1) % len(sizes)
    return tables


class _Apart:
    def __init__(self, order, group, met, score):
        self.group = group
        # Who met whom, both ways round (an arena's recent table-mates may be told one way only).
        self.met: dict[int, dict[int, int]] = {}
        for a, mates in met.items():
            for b, times in mates.items():
                if times and a != b:
                    self.met.setdefault(a, {})[b] = max(times, self.met.get(a, {}).get(b, 0))
                    self.met.setdefault(b, {})[a] = max(times, self.met.get(b, {}).get(a, 0))
        self.score = {e: float(score.get(e, 0.0)) for e in order}
        values = list(self.score.values())
        low, high = min(values), max(values)
        self.spread_scale = SPREAD / (high - low) if high > low else 0.0

    def table_cost(self, table: list[int]) -> float:
        cost = 0.0
        group, met = self.group, self.met
        for i, a in enumerate(table):
            key = group.get(a)
            met_a = met.get(a)
            for b in table[i + 1 :]:
                if key is not None and group.get(b) == key:
                    cost += GROUP
                if met_a:
                    times = met_a.get(b)
                    if times:
                        cost += REPEAT + MEETING * times * times
        if self.spread_scale and table:
            values = [self.score[e] for e in table]
            cost += (max(values) - min(values)) * self.spread_scale
        return cost

    def key(self, tables: list[list[int]]) -> tuple[int, int, float]:
        repeats = 0
        for table in tables:
            for i, a in enumerate(table):
                met_a = self.met.get(a, {})
                repeats += sum(1 for b in table[i + 1 :] if met_a.get(b))
        spread = sum(max(self.score[e] for e in t) - min(self.score[e] for e in t) for t in tables if t)
        return group_pairs(tables, self.group), repeats, spread

    def repair(self, tables: list[list[int]]) -> None:
        """Swaps between tables: first each group pair is parted (a swap that leaves both tables
        without a pair of one group, the nearest tables first); then, while a swap lowers the whole
        cost, troubled tables (a repeat) look at their neighbours and neighbouring tables narrow
        their score spread."""
        costs = [self.table_cost(t) for t in tables]
        self._part_groups(tables, costs)
        count = len(tables)
        for _ in range(PASSES):
            changed = False
            for ti in range(count):
                while costs[ti] >= REPEAT:
                    near = [tj for tj in range(max(0, ti - REACH), min(count, ti + REACH + 1)) if tj != ti]
                    if not self._best_swap(tables, costs, ti, near):
                        break
                    changed = True
            if self.spread_scale:
                for ti in range(count - 1):
                    changed |= self._best_swap(tables, costs, ti, [ti + 1])
            if not changed:
                return

    def _part_groups(self, tables: list[list[int]], costs: list[float]) -> None:
        group = self.group
        count = len(tables)
        counts: list[dict] = []
        for table in tables:
            here: dict = {}
            for e in table:
                key = group.get(e)
                if key is not None:
                    here[key] = here.get(key, 0) + 1
            counts.append(here)
        for ti in range(count):
            for ai in range(len(tables[ti])):
                a = tables[ti][ai]
                key_a = group.get(a)
                if key_a is None or counts[ti][key_a] < 2:
                    continue
                best = None
                for distance in range(1, count):
                    if best is not None and distance > best[0] + REACH:
                        break
                    for tj in (ti - distance, ti + distance):
                        if not 0 <= tj < count or counts[tj].get(key_a):
                            continue
                        for ci, c in enumerate(tables[tj]):
                            key_c = group.get(c)
                            if key_c is not None and counts[ti].get(key_c):
                                continue
                            new_i = self.table_cost(tables[ti][:ai] + [c] + tables[ti][ai + 1 :])
                            new_j = self.table_cost(tables[tj][:ci] + [a] + tables[tj][ci + 1 :])
                            delta = new_i + new_j - costs[ti] - costs[tj]
                            if best is None or delta < best[1]:
                                best = (distance, delta, tj, ci, new_i, new_j)
                if best is None:
                    continue  # no single swap parts it: the group is larger than the tables allow
                _distance, _delta, tj, ci, new_i, new_j = best
                c = tables[tj][ci]
                tables[ti][ai], tables[tj][ci] = c, a
                costs[ti], costs[tj] = new_i, new_j
                key_c = group.get(c)
                counts[ti][key_a] -= 1
                counts[tj][key_a] = counts[tj].get(key_a, 0) + 1
                if key_c is not None:
                    counts[tj][key_c] -= 1
                    counts[ti][key_c] = counts[ti].get(key_c, 0) + 1

    def _best_swap(self, tables, costs, ti: int, others) -> bool:
        table = tables[ti]
        best = None
        for tj in others:
            if tj == ti:
                continue
            other = tables[tj]
            before = costs[ti] + costs[tj]
            for ai in range(len(table)):
                for ci in range(len(other)):
                    if self.group.get(table[ai]) is not None and self.group.get(table[ai]) == self.group.get(other[ci]):
                        continue  # two of one group trade places: nothing changes but the spread
                    new_table = table[:ai] + [other[ci]] + table[ai + 1 :]
                    new_other = other[:ci] + [table[ai]] + other[ci + 1 :]
                    new_i, new_j = self.table_cost(new_table), self.table_cost(new_other)
                    delta = new_i + new_j - before
                    if delta < -1e-9 and (best is None or delta < best[0]):
                        best = (delta, tj, new_table, new_other, new_i, new_j)
        if best is None:
            return False
        _delta, tj, new_table, new_other, new_i, new_j = best
        tables[ti], tables[tj] = new_table, new_other
        costs[ti], costs[tj] = new_i, new_j
        return True
