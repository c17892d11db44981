"""manage.py bench_pairing (issue #9 item 8) runs, ends with the agreed line, and its JSON recounts."""

import io
import json
import re
from itertools import combinations

from django.core.management import call_command

from bench.pairing import run


def test_bench_pairing_prints_seconds_and_repeats_and_writes_json_that_recounts(tmp_path):
    out_file = tmp_path / "seating.json"
    out = io.StringIO()
    call_command(
        "bench_pairing", "--entrants", "60", "--table-size", "4", "--repeat", "1", "--out", str(out_file), stdout=out
    )
    last = out.getvalue().strip().splitlines()[-1]
    match = re.fullmatch(r"seconds=(\d+(?:\.\d+)?) repeats=(\d+) spread=(\d+(?:\.\d+)?) ideal=(\d+(?:\.\d+)?)", last)
    assert match, last
    data = json.loads(out_file.read_text())
    assert set(data) == {"table_size", "history", "scores", "seating", "byes"}
    assert data["table_size"] == 4 and len(data["history"]) == 5
    met = {frozenset(pair) for tables in data["history"] for table in tables for pair in combinations(table, 2)}
    recount = sum(frozenset(pair) in met for table in data["seating"] for pair in combinations(table, 2))
    assert int(match.group(2)) == recount == 0
    # The spread cost beside the repeats (issue #15): recounted from the JSON, and never below plain score order.
    scores = {int(k): v for k, v in data["scores"].items()}
    spread = sum(max(scores[e] for e in t) - min(scores[e] for e in t) for t in data["seating"])
    assert float(match.group(3)) == spread >= float(match.group(4))
    seated = sorted(e for table in data["seating"] for e in table)
    assert seated == list(range(1, 61)) and data["byes"] == []
    # Fifteen tables of four a round, each scoring 3 + 2 + 1 + 0 by place, over five rounds.
    assert sum(data["scores"].values()) == 5 * 15 * 6


def test_bench_core_two_player_odd_field_has_a_bye():
    lines = []
    figures = run(entrants=31, table_size=2, rounds_history=3, seed=2, repeat=1, write=lines.append)
    assert lines[-1] == (
        f"seconds={figures['seconds']:.4f} repeats={figures['repeats']} "
        f"spread={figures['spread']:g} ideal={figures['ideal']:g}"
    )
    assert figures["repeats"] == 0
