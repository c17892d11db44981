"""manage.py bench_arena (issue #20): one seating pass timed, a simulated arena, the agreed last line."""

import io
import re

from django.core.management import call_command

from bench.arena import MAX_ACTIONS, game_lengths, percentile, run

LAST_LINE = re.compile(r"seconds=(\d+\.\d+) mean_wait_s=(\d+\.\d+) p95_wait_s=(\d+\.\d+) repeat_share=(\d+\.\d+)")


def test_issue20_bench_arena_runs_small_and_ends_with_the_agreed_line():
    out = io.StringIO()
    call_command(
        "bench_arena", "--players", "40", "--minutes", "5", "--sample-games", "10", "--passes", "3", stdout=out
    )
    lines = out.getvalue().strip().splitlines()
    match = LAST_LINE.fullmatch(lines[-1])
    assert match, lines[-1]
    seconds, mean_wait, p95_wait, repeat_share = map(float, match.groups())
    assert 0 < seconds < 0.05
    assert mean_wait >= 0 and p95_wait >= 0
    assert 0 <= repeat_share <= 1
    assert any(line.startswith("simulated arena: 40 players, 5 min") for line in lines)


def test_issue20_bench_arena_figures_recount_from_the_waits():
    lines = []
    figures = run(players=24, table_size=3, minutes=6, seed=3, passes=1, sample_games=8, write=lines.append)
    waits = figures["waits"]
    assert waits, "six minutes of three-player games: everyone plays again"
    assert lines[-1] == (
        f"seconds={figures['seconds']:.4f} mean_wait_s={sum(waits) / len(waits):.2f} "
        f"p95_wait_s={percentile(waits, 0.95):.2f} repeat_share={figures['repeat_share']:.3f}"
    )


def test_issue20_without_a_minimum_wait_everyone_plays_again_by_the_next_pass():
    figures = run(players=40, table_size=4, minutes=8, seed=1, passes=1, sample_games=8, min_wait_s=0, write=[].append)
    assert figures["waits"] and max(figures["waits"]) < 1.0
    # Whoever just played together is free together and, nobody else being free, plays together again.
    assert figures["repeat_share"] > 0.5


def test_issue20_game_lengths_are_whole_bot_games():
    lengths, endless = game_lengths(4, games=5, seed=2)
    assert len(lengths) + endless == 5
    assert lengths and all(40 <= n <= MAX_ACTIONS for n in lengths)
    assert game_lengths(4, games=5, seed=2) == (lengths, endless)


def test_issue20_a_bot_game_that_never_ends_is_left_out_of_the_sample():
    # Game 24 at six players, seed 0: three medium bots take the same cards back and forth without end.
    lengths, endless = game_lengths(6, games=25, seed=0)
    assert endless >= 1 and len(lengths) == 25 - endless


def test_issue20_nearest_rank_percentile():
    assert percentile(list(range(1, 21)), 0.95) == 19
    assert percentile([5.0], 0.95) == 5.0
    assert percentile([], 0.95) == 0.0
