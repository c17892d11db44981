"""manage.py bench_battle: a club battle's round seated with clubmates apart, the agreed last line."""

import io
import random
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.management.commands.bench_battle import club_sizes

LAST_LINE = re.compile(r"seconds=(\d+\.\d+) clubmates_together=(\d+) tables=(\d+)")


def test_bench_battle_runs_small_and_ends_with_the_agreed_line():
    out = io.StringIO()
    call_command("bench_battle", "--clubs", "6", "--players", "40", "--table-size", "4", "--passes", "1", stdout=out)
    lines = out.getvalue().strip().splitlines()
    match = LAST_LINE.fullmatch(lines[-1])
    assert match, lines[-1]
    _seconds, together, tables = match.groups()
    assert (int(together), int(tables)) == (0, 10)
    assert lines[0].startswith("clubs=6 players=40 ")


def test_the_benchmarks_clubs_are_uneven_and_none_larger_than_a_quarter():
    sizes = club_sizes(50, 1000, random.Random(0))
    assert sum(sizes) == 1000 and len(sizes) == 50
    assert max(sizes) <= 250 and min(sizes) >= 1 and max(sizes) >= 5 * min(sizes)


def test_too_few_clubs_for_the_quarter_rule_are_refused():
    with pytest.raises(CommandError):
        club_sizes(3, 100, random.Random(0))
