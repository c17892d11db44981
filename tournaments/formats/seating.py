"""What every format returns, and the counting they share: table sizes, meetings, repeats, flags."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Every code that can appear in ``Seating.flags``: stable ids, which the event app
#: words in one place (``tournaments.selectors.FLAG_TEXTS``, translated). ``bye``: sits
#: out this round (``bye_again``: again); ``pulled_up`` / ``pulled_down``: seated at a
#: table of higher / lower scores than its own; ``repeat``: meets a table-mate again.
FLAGS = frozenset({"bye", "bye_again", "pulled_up", "pulled_down", "repeat"})


@dataclass(frozen=True)
class Seating:
    """One round's seating.

    ``tables``: each table's entrants in seat order (the top table first).
    ``byes``: entrants who sit out this round; the event scores them as it says.
    ``repeats``: pairs of table-mates in this seating who met in an earlier round.
    ``flags``: ``(entrant, code)`` for every way the seating deviates from the ideal (codes in ``FLAGS``).
    """

    tables: list[list[int]]
    byes: list[int] = field(default_factory=list)
    repeats: int = 0
    flags: list[tuple[int, str]] = field(default_factory=list)

    def seated(self) -> list[int]:
        """Every entrant at a table, table by table."""
        return [entrant for table in self.tables for entrant in table]


def check_table_size(table_size: int) -> None:
    if not isinstance(table_size, int) or isinstance(table_size, bool) or not 2 <= table_size <= 6:
        raise ValueError(f"table_size must be an int from 2 to 6, not {table_size!r}")


def check_entrants(entrants: list[int]) -> None:
    if len(set(entrants)) != len(entrants):
        raise ValueError("an entrant appears twice")


def table_sizes(n: int, table_size: int) -> list[int]:
    """Balanced table sizes, largest first: all within one seat of each other, never a table of one.

    As few tables as ``table_size`` allows. ``sum(result) == n`` except when one entrant cannot sit:
    an odd field at 2-player tables, or a field of one; that entrant gets a bye.

    >>> table_sizes(10, 4)
    [4, 3, 3]
    >>> table_sizes(7, 2)
    [2, 2, 2]
    """
    check_table_size(table_size)
    if n < 0:
        raise ValueError(f"n must not be negative, not {n}")
    if table_size == 2:
        return [2] * (n // 2)
    if n < 2:
        return []
    tables = -(-n // table_size)
    small, bigger = divmod(n, tables)
    # With at least two tables every table holds more than table_size / 2 >= 1.5 entrants, so never one.
    return [small + 1] * bigger + [small] * (tables - bigger)


def meetings(history: list[list[list[int]]]) -> dict[int, dict[int, int]]:
    """How many earlier rounds each two entrants shared a table: ``met[a][b]``."""
    met: dict[int, dict[int, int]] = {}
    for round_tables in history:
        add_round(met, round_tables)
    return met


def add_round(met: dict[int, dict[int, int]], tables: list[list[int]]) -> None:
    """Count one more round in ``met``."""
    for table in tables:
        for a in table:
            mates = met.setdefault(a, {})
            for b in table:
                if b != a:
                    mates[b] = mates.get(b, 0) + 1


def repeat_pairs(tables: list[list[int]], met: dict[int, dict[int, int]]) -> list[tuple[int, int]]:
    """Pairs of table-mates who met before, table by table."""
    pairs = []
    for table in tables:
        for i, a in enumerate(table):
            met_a = met.get(a)
            if not met_a:
                continue
            pairs.extend((a, b) for b in table[i + 1 :] if b in met_a)
    return pairs


def count_repeats(tables: list[list[int]], history: list[list[list[int]]]) -> int:
    """Pairs of table-mates in ``tables`` who shared a table in any round of ``history``."""
    return len(repeat_pairs(tables, meetings(history)))


def repeat_flags(pairs: list[tuple[int, int]]) -> list[tuple[int, str]]:
    flagged = dict.fromkeys(entrant for pair in pairs for entrant in pair)
    return [(entrant, "repeat") for entrant in flagged]


def score_flags(tables: list[list[int]], score: dict[int, float]) -> list[tuple[int, str]]:
    """``pulled_up`` / ``pulled_down``: an entrant whose score lies outside the scores that the same table
    would hold if everyone sat in plain score order (same table sizes, tables from the top down)."""
    ranked = sorted((score[e] for table in tables for e in table), reverse=True)
    flags = []
    start = 0
    for table in tables:
        ideal = ranked[start : start + len(table)]
        start += len(table)
        low, high = ideal[-1], ideal[0]
        for entrant in table:
            if score[entrant] < low:
                flags.append((entrant, "pulled_up"))
            elif score[entrant] > high:
                flags.append((entrant, "pulled_down"))
    return flags
