"""Engine speed: random full games per second, time per step, copies per second.

Plain Python (no Django) so that it runs anywhere; `manage.py bench_engine`
is a thin wrapper. A random player picks the acting seat from
`game.to_move()` and one of its legal actions, both with `random.Random(seed)`,
so a run is reproducible (the timings, of course, are not).

Rates are per CPU second of this process (`time.process_time`), which keeps
them meaningful on a shared, loaded machine; the wall-clock time is printed
too, with the load average.
"""

from __future__ import annotations

import os
import platform
import random
import time
from dataclasses import dataclass

from games.engine import Game, Rules

# (key, label, rules) for every table the bench plays.
TABLES = (
    ("2p", "2-player podkidnoy", Rules(variant="podkidnoy", players=2)),
    ("4p_perevodnoy_partners", "4-player perevodnoy, partners", Rules(variant="perevodnoy", players=4, partners=True)),
    ("6p", "6-player podkidnoy", Rules(variant="podkidnoy", players=6)),
)
REPLAY_GAMES = 200  # games per table replayed to time legal_actions + act alone
WARM_UP_GAMES = 20  # untimed games first (caches, branch predictors, lazy imports)


@dataclass
class TableResult:
    key: str
    label: str
    games: int
    steps: int
    seconds: float  # CPU time of this process
    wall: float
    step_us: float  # legal_actions + act only, from replaying recorded games

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def steps_per_game(self) -> float:
        return self.steps / self.games if self.games else 0.0


def play_random_game(rules: Rules, seed: int, rng: random.Random, record: list | None = None) -> int:
    """Play one game to the end with random legal actions; return its number of actions."""
    game = Game.new(rules, seed)
    steps = 0
    choice = rng.choice
    while not game.is_over:
        to_move = game.to_move()
        seat = to_move[0] if len(to_move) == 1 else choice(to_move)
        action = choice(game.legal_actions(seat))
        game.act(seat, action)
        if record is not None:
            record.append((seat, action))
        steps += 1
    return steps


def _replay_us_per_step(rules: Rules, recorded: list[tuple[int, list]]) -> float:
    """Microseconds per `legal_actions(seat)` + `act(seat, action)` on recorded games."""
    games = [(Game.new(rules, seed), moves) for seed, moves in recorded]
    steps = sum(len(moves) for _, moves in games)
    start = time.process_time()
    for game, moves in games:
        legal_actions, act = game.legal_actions, game.act
        for seat, action in moves:
            legal_actions(seat)
            act(seat, action)
    elapsed = time.process_time() - start
    return elapsed / steps * 1e6 if steps else 0.0


def bench_table(
    key: str, label: str, rules: Rules, *, seconds: float | None = 2.0, games: int | None = None, seed: int = 0
) -> TableResult:
    """Random full games for `seconds` (or exactly `games` games)."""
    warm_up = random.Random(seed)
    for i in range(min(WARM_UP_GAMES, games or WARM_UP_GAMES)):
        play_random_game(rules, -1 - i, warm_up)
    rng = random.Random(seed)
    played = steps = 0
    recorded = []
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds if games is None else None
    while True:
        if games is not None:
            if played >= games:
                break
        elif played and time.perf_counter() >= deadline:
            break
        game_seed = seed * 1_000_003 + played
        record = [] if len(recorded) < REPLAY_GAMES else None
        steps += play_random_game(rules, game_seed, rng, record)
        if record is not None:
            recorded.append((game_seed, record))
        played += 1
    cpu, wall = time.process_time() - cpu_start, time.perf_counter() - start
    return TableResult(key, label, played, steps, cpu, wall, _replay_us_per_step(rules, recorded))


def bench_copies(*, seconds: float = 1.0, seed: int = 0) -> float:
    """`Game.copy()` per second on mid-game positions of 2- and 6-player games."""
    rng = random.Random(seed)
    positions = []
    for players in (2, 6):
        game = Game.new(Rules(players=players), seed)
        for _ in range(20):
            if game.is_over:
                break
            seat = game.to_move()[0]
            game.act(seat, rng.choice(game.legal_actions(seat)))
        positions.append(game)
    copies = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while True:
        for game in positions:
            for _ in range(500):
                game.copy()
        copies += 500 * len(positions)
        if time.perf_counter() >= deadline:
            break
    return copies / (time.process_time() - cpu_start)


def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} CPU(s), {model}, Python {platform.python_version()}"


def run(*, seconds: float = 2.0, games: int | None = None, seed: int = 0, write=print) -> dict:
    """Run the whole bench, writing a report line by line; the last line is
    exactly `games_per_s_2p=<number>`. Returns the figures as a dict."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    write(f"engine bench on {machine()}; one process; load average {load}")
    budget = f"{games} games" if games is not None else f"{seconds:g} s"
    write(f"random legal actions, acting seat from to_move(), seed {seed}, {budget} per table")
    figures = {}
    results = []
    for key, label, rules in TABLES:
        result = bench_table(key, label, rules, seconds=seconds, games=games, seed=seed)
        results.append(result)
        write(
            f"{label}: {result.games} games in {result.seconds:.2f} CPU s ({result.wall:.2f} s wall) = "
            f"{result.games_per_s:.1f} games/s, {result.steps_per_game:.1f} actions/game, "
            f"{result.step_us:.2f} us per legal_actions + act"
        )
        figures[f"games_per_s_{key}"] = result.games_per_s
        figures[f"us_per_step_{key}"] = result.step_us
    copies = bench_copies(seconds=min(1.0, seconds) if games is None else 0.2, seed=seed)
    write(f"Game.copy(): {copies:.0f} copies/s")
    figures["copies_per_s"] = copies
    for result in results[1:]:
        write(f"games_per_s_{result.key}={result.games_per_s:.1f}")
    for result in results:
        write(f"us_per_step_{result.key}={result.step_us:.2f}")
    write(f"copies_per_s={copies:.0f}")
    write(f"games_per_s_2p={results[0].games_per_s:.1f}")
    return figures
