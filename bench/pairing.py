"""The measurement behind ``manage.py bench_pairing``: seat one Swiss round of a big field that already
has some rounds of history, all produced by ``swiss_round`` itself with random results.

Plain Python (no Django): the management command only parses options.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable

from tournaments.formats.scoring import default_points, points_for_places
from tournaments.formats.seating import Seating, count_repeats
from tournaments.formats.swiss import swiss_round


def play_history(
    entrants: list[int], table_size: int, rounds: int, seed: int
) -> tuple[list[list[list[int]]], dict[int, float], dict[int, int], dict[int, float]]:
    """``rounds`` Swiss rounds with random places at every table, scored by ``default_points`` of the
    table's size (the durak scores 0). A bye scores a win at a full table. Ratings are random too,
    so round one seeds by them. Returns (history, scores, byes_had, ratings)."""
    rng = random.Random(seed)
    ratings = {entrant: round(rng.gauss(1500, 200), 1) for entrant in entrants}
    scores = dict.fromkeys(entrants, 0.0)
    byes_had: dict[int, int] = {}
    history: list[list[list[int]]] = []
    bye_points = default_points(table_size)[0]
    for number in range(rounds):
        seating = swiss_round(entrants, scores, history, table_size, ratings=ratings, byes_had=byes_had, seed=number)
        history.append(seating.tables)
        for entrant in seating.byes:
            byes_had[entrant] = byes_had.get(entrant, 0) + 1
            scores[entrant] += bye_points
        for table in seating.tables:
            finish = rng.sample(table, len(table))
            places = {entrant: place for place, entrant in enumerate(finish, start=1)}
            for entrant, points in points_for_places(places, len(table)).items():
                scores[entrant] += points
    return history, scores, byes_had, ratings


def run(
    *,
    entrants: int = 1024,
    table_size: int = 4,
    rounds_history: int = 5,
    seed: int = 1,
    repeat: int = 3,
    out: str | None = None,
    write: Callable[[str], object] = print,
) -> dict:
    """Build the history, then time ``swiss_round`` for the next round ``repeat`` times (wall clock,
    ``time.perf_counter``). The last line written is ``seconds=<fastest run> repeats=<n>``, where
    ``repeats`` is recounted from the seating and the history (pairs of table-mates who met before).
    The last line also gives ``spread=<sum over tables of the highest minus the lowest score>`` and
    ``ideal=<the same sum for plain score order>`` (tables filled from the top of the ranking, no care
    for repeats): the spread the seating costs beside the repeats it avoids."""
    ids = list(range(1, entrants + 1))
    started = time.perf_counter()
    history, scores, byes_had, ratings = play_history(ids, table_size, rounds_history, seed)
    write(
        f"entrants={entrants} table_size={table_size} rounds_history={rounds_history} seed={seed}: "
        f"history built in {time.perf_counter() - started:.2f} s"
    )
    timings = []
    seating: Seating | None = None
    for run_number in range(1, repeat + 1):
        started = time.perf_counter()
        seating = swiss_round(ids, scores, history, table_size, ratings=ratings, byes_had=byes_had, seed=rounds_history)
        timings.append(time.perf_counter() - started)
        write(f"run {run_number}: {timings[-1]:.4f} s")
    repeats = count_repeats(seating.tables, history)
    sizes = sorted({len(table) for table in seating.tables})
    write(f"tables={len(seating.tables)} sizes={sizes} byes={len(seating.byes)} flags={len(seating.flags)}")
    if out:
        with open(out, "w", encoding="utf-8") as file:
            json.dump(
                {
                    "table_size": table_size,
                    "history": history,
                    "scores": {str(entrant): points for entrant, points in scores.items()},
                    "seating": seating.tables,
                    "byes": seating.byes,
                },
                file,
            )
        write(f"wrote {out}")
    spread = score_spread(seating.tables, scores)
    ranked = sorted((entrant for table in seating.tables for entrant in table), key=lambda e: -scores[e])
    plain, start = [], 0
    for table in seating.tables:
        plain.append(ranked[start : start + len(table)])
        start += len(table)
    ideal = score_spread(plain, scores)
    write(f"seconds={min(timings):.4f} repeats={repeats} spread={spread:g} ideal={ideal:g}")
    return {"seconds": min(timings), "timings": timings, "repeats": repeats, "spread": spread, "ideal": ideal}


def score_spread(tables: list[list[int]], scores: dict[int, float]) -> float:
    """The sum over tables of the highest score minus the lowest."""
    return sum(max(scores[e] for e in table) - min(scores[e] for e in table) for table in tables)
