"""The engine benchmark (manage.py bench_engine) runs and reports in the agreed form."""

import io
import re

from django.core.management import call_command

from bench.engine import TABLES, run

NUMBER = r"\d+(?:\.\d+)?"


def test_bench_engine_command_runs_and_ends_with_the_2p_rate():
    out = io.StringIO()
    call_command("bench_engine", "--games", "3", stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert re.fullmatch(rf"games_per_s_2p={NUMBER}", lines[-1]), lines[-1]
    assert float(lines[-1].split("=")[1]) > 0
    keys = dict(line.split("=", 1) for line in lines if re.fullmatch(rf"\w+={NUMBER}", line))
    for key, _label, _rules in TABLES:
        assert float(keys[f"games_per_s_{key}"]) > 0
        assert float(keys[f"us_per_step_{key}"]) > 0
    assert float(keys["copies_per_s"]) > 0


def test_bench_core_is_plain_python_and_returns_figures():
    lines = []
    figures = run(games=2, seed=7, write=lines.append)
    assert lines[-1] == f"games_per_s_2p={figures['games_per_s_2p']:.1f}"
    assert set(figures) >= {"games_per_s_2p", "games_per_s_6p", "copies_per_s"}
