"""The measurement behind ``manage.py bench_arena``: one arena seating pass over a big free field, and a
simulated arena in which whoever finishes a game is seated again by ``arena_tables``.

Plain Python (no Django): the management command only parses options.

Game lengths: the site has no recorded human games to draw from, so the lengths come from whole games
that the engine's club-level bots ("medium") play at the event's table size, counted in actions
(every attack, cover, throw-in, take and pass), times ``SECONDS_PER_ACTION``. That constant is an
assumption, not a measurement of people: it is the human pace of the site's load test (``--pace 2``,
one action per table every 2 s), well inside the 15 to 60 s turn timers. ``--seconds-per-action``
changes it.

The simulated hour: every player present from the start to the end, all free at second 0. A seating
pass runs every whole second (a finished game nudges a pass, the sweep runs one anyway) over everyone
free; a dealt game lasts one length drawn from the sample (plus a fraction of a second, so that games
end between two passes: a wait includes up to one second until the next pass). Places at a finished table follow each
player's hidden strength plus noise, so points spread as in a real event. At the end no new game is
dealt. Waits are counted from the end of a player's game to the start of his next; a game *repeats* a
table-mate when two of its players sat together in the previous game of either of them.
"""

from __future__ import annotations

import heapq
import math
import os
import random
import statistics
import time
from collections.abc import Callable

from bench.engine import machine
from games.bots import get_bot
from games.bots.arena import next_seat
from games.engine import Game, Rules
from tournaments.formats.arena import MIN_WAIT_S, ArenaGame, FreePlayer, arena_score, arena_tables

#: Seconds a person takes per action on average: an assumption (see the module docstring).
SECONDS_PER_ACTION = 2.0
#: Bot games whose lengths make the sample the simulation draws from.
SAMPLE_GAMES = 200
#: A bot game not over after this many actions is left out of the sample (see ``game_lengths``).
MAX_ACTIONS = 1000


def game_lengths(table_size: int, *, games: int = SAMPLE_GAMES, seed: int = 0) -> tuple[list[int], int]:
    """Actions in each of ``games`` whole games of medium bots at a table of ``table_size``, and how many
    games were left out because they had not ended after ``MAX_ACTIONS`` (bots taking the same cards
    back and forth in an endgame without stock; a person would not, or the turn timer would end it)."""
    rules = Rules(players=table_size)
    lengths = []
    endless = 0
    for number in range(games):
        bots = [get_bot("medium", seed=seed * 7919 + number * table_size + seat) for seat in range(table_size)]
        game = Game.new(rules, seed=seed * 1_000_003 + number)
        actions = 0
        while not game.is_over and actions < MAX_ACTIONS:
            seat = next_seat(game)
            game.act(seat, bots[seat].choose(game.view(seat)))
            actions += 1
        if game.is_over:
            lengths.append(actions)
        else:
            endless += 1
    return lengths, endless


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (``share`` 0.95: the value 95 % of ``values`` do not exceed)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def busy_field(players: int, table_size: int, rng: random.Random, now: float) -> list[FreePlayer]:
    """A free field as an arena's busiest pass sees it: everyone just off a table of ``table_size``
    (his mates there are his recent mates), points of about fifteen games, freed over ten seconds."""
    entrants = list(range(1, players + 1))
    rng.shuffle(entrants)
    mates: dict[int, frozenset[int]] = {}
    for start in range(0, players, table_size):
        table = entrants[start : start + table_size]
        for entrant in table:
            mates[entrant] = frozenset(table) - {entrant}
    return [
        FreePlayer(
            entrant=entrant,
            points=float(rng.randint(0, 15 * (table_size - 1))),
            free_since=now - rng.uniform(0, 10),
            rating=round(rng.gauss(1500, 200), 1),
            recent_mates=mates[entrant],
        )
        for entrant in sorted(entrants)
    ]


def time_pass(players: int, table_size: int, *, passes: int, seed: int, min_wait_s: float) -> tuple[float, float]:
    """Median seconds of one ``arena_tables`` pass over ``players`` free players: wall clock, and the
    CPU time of this process (the steadier figure on a shared machine)."""
    rng = random.Random(seed)
    wall, cpu = [], []
    for number in range(passes):
        field = busy_field(players, table_size, rng, now=1000.0)
        start, cpu_start = time.perf_counter(), time.process_time()
        arena_tables(field, table_size, now=1000.0, min_wait_s=min_wait_s, seed=seed + number)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
    return statistics.median(wall), statistics.median(cpu)


def simulate(
    players: int,
    table_size: int,
    *,
    minutes: float,
    lengths: list[int],
    seconds_per_action: float,
    min_wait_s: float,
    seed: int,
) -> dict:
    """Run the arena for ``minutes``; return the waits, the repeat count and the tables dealt."""
    rng = random.Random(seed)
    entrants = list(range(1, players + 1))
    strength = {entrant: rng.gauss(1500, 200) for entrant in entrants}
    games: dict[int, list[ArenaGame]] = {entrant: [] for entrant in entrants}
    points = dict.fromkeys(entrants, 0.0)
    last_mates: dict[int, frozenset[int]] = dict.fromkeys(entrants, frozenset())
    free_since: dict[int, float] = dict.fromkeys(entrants, 0.0)
    in_play: list[tuple[float, int, list[int]]] = []
    waits: list[float] = []
    dealt = later = repeats = 0
    sizes: dict[int, int] = {}
    end = minutes * 60
    second = 0
    while second < end:
        while in_play and in_play[0][0] <= second:
            finished_at, _, table = heapq.heappop(in_play)
            finish = sorted(table, key=lambda e: strength[e] + rng.gauss(0, 300), reverse=True)
            for place, entrant in enumerate(finish, start=1):
                games[entrant].append(ArenaGame(place=place, table_size=len(table)))
                points[entrant] = arena_score(games[entrant]).points
                last_mates[entrant] = frozenset(table) - {entrant}
                free_since[entrant] = finished_at
        if len(free_since) >= 2:
            field = [
                FreePlayer(entrant, points[entrant], since, strength[entrant], last_mates[entrant])
                for entrant, since in free_since.items()
            ]
            for table in arena_tables(field, table_size, now=second, min_wait_s=min_wait_s, seed=seed + second):
                dealt += 1
                sizes[len(table)] = sizes.get(len(table), 0) + 1
                if second > 0:
                    later += 1
                    repeats += any(b in last_mates[a] for i, a in enumerate(table) for b in table[i + 1 :])
                for entrant in table:
                    if games[entrant]:
                        waits.append(second - free_since[entrant])
                    del free_since[entrant]
                # A game ends anywhere within a second, not on the pass's tick.
                duration = rng.choice(lengths) * seconds_per_action + rng.random()
                heapq.heappush(in_play, (second + duration, dealt, table))
        second += 1
    return {
        "waits": waits,
        "dealt": dealt,
        "dealt_after_start": later,
        "repeats": repeats,
        "sizes": sizes,
        "games_per_player": sum(map(len, games.values())) / players,
    }


def run(
    *,
    players: int = 1000,
    table_size: int = 4,
    minutes: float = 60,
    seed: int = 0,
    passes: int = 7,
    min_wait_s: float = MIN_WAIT_S,
    seconds_per_action: float = SECONDS_PER_ACTION,
    sample_games: int = SAMPLE_GAMES,
    write: Callable[[str], object] = print,
) -> dict:
    """Time the pass, simulate the arena, write the report; the last line is exactly
    ``seconds=<pass> mean_wait_s=<n> p95_wait_s=<n> repeat_share=<n>``."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    write(f"arena bench on {machine()}; load average {load}")
    seconds, cpu_seconds = time_pass(players, table_size, passes=passes, seed=seed, min_wait_s=min_wait_s)
    write(
        f"seating pass: {players} free players at tables of {table_size}, median of {passes} passes: "
        f"{seconds * 1000:.2f} ms wall, {cpu_seconds * 1000:.2f} ms CPU"
    )
    lengths, endless = game_lengths(table_size, games=sample_games, seed=seed)
    if not lengths:
        raise ValueError(f"none of {sample_games} bot games ended within {MAX_ACTIONS} actions")
    durations = [n * seconds_per_action for n in lengths]
    write(
        f"game lengths: {len(lengths)} games of medium bots at {table_size} players "
        f"({endless} left out, not over after {MAX_ACTIONS} actions), "
        f"{statistics.mean(lengths):.1f} actions on average x {seconds_per_action:g} s an action: "
        f"mean {statistics.mean(durations):.0f} s, p5 {percentile(durations, 0.05):.0f} s, "
        f"p95 {percentile(durations, 0.95):.0f} s"
    )
    result = simulate(
        players,
        table_size,
        minutes=minutes,
        lengths=lengths,
        seconds_per_action=seconds_per_action,
        min_wait_s=min_wait_s,
        seed=seed,
    )
    waits = result["waits"]
    mean_wait = statistics.mean(waits) if waits else 0.0
    p95_wait = percentile(waits, 0.95)
    later = result["dealt_after_start"]
    repeat_share = result["repeats"] / later if later else 0.0
    sizes = ", ".join(f"{count} of {size}" for size, count in sorted(result["sizes"].items(), reverse=True))
    write(
        f"simulated arena: {players} players, {minutes:g} min, a pass every second, min_wait_s {min_wait_s:g}, "
        f"seed {seed}: {result['dealt']} tables dealt ({sizes}), {result['games_per_player']:.1f} games a player"
    )
    write(
        f"waits between games: {len(waits)}, mean {mean_wait:.2f} s, p95 {p95_wait:.2f} s, "
        f"max {max(waits, default=0.0):.2f} s; tables with a repeat table-mate: {result['repeats']} of {later}"
    )
    write(
        f"seconds={seconds:.4f} mean_wait_s={mean_wait:.2f} p95_wait_s={p95_wait:.2f} repeat_share={repeat_share:.3f}"
    )
    return {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "mean_wait_s": mean_wait,
        "p95_wait_s": p95_wait,
        "repeat_share": repeat_share,
        "dealt": result["dealt"],
        "repeats": result["repeats"],
        "waits": waits,
    }
