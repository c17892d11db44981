"""Memory of one server process over a run (`manage.py bench_memory`).

    python manage.py bench_memory                       # 1,000 sockets, 500 games, 10 minutes
    python manage.py bench_memory --duration 120 --sample 5

What it does, in a child process with production-like settings (as
`bench_tables`: DEBUG off, a fresh SQLite file in WAL mode, the in-memory
channel layer, the embedded Celery worker and beat, i.e. `dev.py serve`):

1. plays `--games` whole games of two through the services (random legal
   moves), so the database holds that many finished games;
2. starts one daphne and opens `--sockets` websockets to the tables of those
   finished games (two seats each, then spectators' sockets of signed-in
   players), each one reading its first frame and then idle, as open tabs;
3. keeps `--churn` other tables playing through the server the whole time
   (one move every `--pace` seconds each, a new deal at every game's end), so
   the per-process caches (rendered cards and panels, positions, log lines)
   keep meeting new keys;
4. samples the server's resident memory (VmRSS) every `--sample` seconds
   for `--duration` seconds, and reports it with the growth over the second
   half of the run (a leak shows there; warming caches fill in the first).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management import call_command

from bench.loadtest import LoadFailed, Seat, cpu_seconds, load_average

INSIDE = "DURAK_BENCH_MEMORY_INSIDE"


@dataclass(frozen=True)
class Options:
    sockets: int = 1000
    games: int = 500
    duration: float = 600.0
    sample: float = 10.0
    churn: int = 4
    pace: float = 0.25
    json_path: str = ""

    def __post_init__(self):
        if self.games < 1 or self.sockets < 0 or self.duration <= 0 or self.sample <= 0 or self.churn < 0:
            raise LoadFailed("games must be positive; sockets and churn not negative; duration and sample positive")

    def arguments(self) -> list[str]:
        args = [
            f"--sockets={self.sockets}",
            f"--games={self.games}",
            f"--duration={self.duration}",
            f"--sample={self.sample}",
            f"--churn={self.churn}",
            f"--pace={self.pace}",
        ]
        if self.json_path:
            args.append(f"--json={Path(self.json_path).resolve()}")
        return args


def inside() -> bool:
    return os.environ.get(INSIDE) == "1"


def relaunch(options: Options, write) -> int:
    """Run `bench_memory` again in a child with a fresh SQLite file and production-like settings."""
    workdir = tempfile.mkdtemp(prefix="durak-memory-")
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        {
            INSIDE: "1",
            "SQLITE_PATH": str(Path(workdir) / "memory.sqlite3"),
            "DEBUG": "false",
            "SECRET_KEY": env.get("SECRET_KEY") or secrets.token_urlsafe(50),
            "SECURE_SSL_REDIRECT": "false",
            "SECURE_COOKIES": "false",
            "LOG_LEVEL": "WARNING",
            "CELERY_EMBEDDED": "true",
        }
    )
    write(f"bench_memory: database {env['SQLITE_PATH']}")
    try:
        manage = Path(settings.BASE_DIR) / "manage.py"
        return subprocess.call([sys.executable, str(manage), "bench_memory", *options.arguments()], env=env)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ---------------------------------------------------------------- the database


def session_of(user) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def finished_games(count: int, write) -> list[dict]:
    """`count` tables of two whose game was played to the end; their players' sessions."""
    from django.contrib.auth import get_user_model

    from games import engine
    from games.models import Game
    from games.services import play, tables

    User = get_user_model()
    rng = random.Random(11)
    made = []
    started = time.monotonic()
    for i in range(count):
        users = [User.objects.create_user(f"mem-{i}-{s}-{secrets.token_hex(3)}") for s in range(2)]
        table = tables.do_create_table(rules=engine.Rules(players=2), host=users[0], seat_users=users, start=True)
        game = Game.objects.filter(table=table).order_by("-number").first()
        position = engine.Game.from_json(game.state_json)
        while not position.is_over:
            seat = position.to_move()[0]
            legal = position.legal_actions(seat)
            keep = [a for a in legal if a != "take"] or legal
            action = rng.choice(keep)
            play.do_player_move(game_id=game.pk, user=users[seat], action=action)
            position.act(seat, action)
        made.append({"table": table.pk, "sessions": [session_of(u) for u in users], "users": [u.pk for u in users]})
        if (i + 1) % 100 == 0:
            write(f"  {i + 1} finished games ({time.monotonic() - started:.0f} s)")
    return made


def churn_tables(count: int) -> list[dict]:
    from django.contrib.auth import get_user_model

    from games import engine
    from games.services import tables

    User = get_user_model()
    made = []
    for i in range(count):
        users = [User.objects.create_user(f"churn-{i}-{s}-{secrets.token_hex(3)}") for s in range(2)]
        table = tables.do_create_table(rules=engine.Rules(players=2), host=users[0], seat_users=users, start=True)
        made.append({"table": table.pk, "sessions": [session_of(u) for u in users], "host": users[0].pk})
    return made


def deal_again(table_id: int, host_id: int) -> None:
    from games.services import tables

    tables.do_deal_next_game(table_id=table_id)  # the bench deals: no "play again" round trip


# ---------------------------------------------------------------- the run


def measure(options: Options, write) -> dict:
    from bench.tables import free_port, start_daphne

    call_command("migrate", verbosity=0, interactive=False)
    write(f"playing {options.games} games to the end through the services...")
    finished = finished_games(options.games, write)
    churn = churn_tables(options.churn)
    port = free_port()
    server = start_daphne(port)
    try:
        return asyncio.run(run(options, f"http://127.0.0.1:{port}", server.pid, finished, churn, write))
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()


async def run(options: Options, base: str, pid: int, finished: list, churn: list, write) -> dict:
    samples = []
    started = time.monotonic()

    def sample(label: str, sockets: int, moves: int):
        samples.append(
            {
                "t": round(time.monotonic() - started, 1),
                "rss_mb": round(rss_mb(pid), 1),
                "cpu_s": round(cpu_seconds(pid), 1),
                "sockets": sockets,
                "churn_moves": moves,
                "load": load_average(),
                "phase": label,
            }
        )

    sample("started", 0, 0)
    sockets: list[Seat] = []
    for k in range(options.sockets):
        table = finished[k % len(finished)]
        session = table["sessions"][(k // len(finished)) % 2]
        sockets.append(await Seat.open(base, table["table"], session, 30))
        if (k + 1) % 100 == 0:  # in batches: a thousand handshakes at once would time out
            await all_reach(sockets[-100:], lambda s: s.game is not None)
    if not await all_reach(sockets, lambda s: s.game is not None):
        raise LoadFailed("a socket never got its first frame")
    sample("sockets open", len(sockets), 0)
    write(f"{len(sockets)} sockets open on {len(finished)} finished games; RSS {samples[-1]['rss_mb']} MB")

    moves = [0]
    stop = asyncio.Event()
    players = [asyncio.create_task(keep_playing(base, t, options.pace, moves, stop)) for t in churn]
    end = time.monotonic() + options.duration
    while time.monotonic() < end:
        await asyncio.sleep(min(options.sample, max(0.0, end - time.monotonic())))
        open_now = sum(not s.closed for s in sockets)
        sample("idle + churn", open_now, moves[0])
        last = samples[-1]
        write(f"  t={last['t']:7.1f} s  RSS {last['rss_mb']:7.1f} MB  sockets {open_now}  churn moves {moves[0]}")
    stop.set()
    await asyncio.gather(*players, return_exceptions=True)
    for s in sockets:
        await s.close()
    return summary(options, samples)


async def all_reach(seats: list[Seat], test, timeout: float = 30) -> bool:
    """Until test(seat) holds for every seat (each waits on its own socket)."""
    return all(await asyncio.gather(*(s.wait_for(lambda s=s: test(s), timeout) for s in seats)))


async def keep_playing(base: str, table: dict, pace: float, moves: list, stop: asyncio.Event):
    """One table playing on: a legal move from a seat's page every `pace` seconds, a new deal at the end."""
    seats = [await Seat.open(base, table["table"], s, 30) for s in table["sessions"]]
    rng = random.Random(table["table"])
    try:
        while not stop.is_set():
            await asyncio.sleep(pace)
            if not await all_reach(seats, lambda s: s.game is not None):
                return
            game, count = seats[0].game, max(s.moves for s in seats)
            await all_reach(seats, lambda s, g=game, c=count: s.game != g or s.moves >= c)
            if any(s.over for s in seats):
                await sync_to_async(deal_again)(table["table"], table["host"])
                await all_reach(seats, lambda s, g=game: s.game != g)
                continue
            movers = [s for s in seats if s.legal]
            if not movers:
                continue
            mover = rng.choice(movers)
            keep = [a for a in mover.legal if a != "take"] or mover.legal
            await mover.connection.send(json.dumps({"action": rng.choice(keep)}))
            if await all_reach(seats, lambda s, g=game, c=count: s.game != g or s.moves > c):
                moves[0] += 1
    finally:
        for s in seats:
            await s.close()


def summary(options: Options, samples: list) -> dict:
    idle = [s for s in samples if s["phase"] == "idle + churn"]
    second_half = idle[len(idle) // 2 :]
    growth = (second_half[-1]["rss_mb"] - second_half[0]["rss_mb"]) if len(second_half) > 1 else 0.0
    span = (second_half[-1]["t"] - second_half[0]["t"]) if len(second_half) > 1 else 0.0
    return {
        "options": {
            "sockets": options.sockets,
            "games": options.games,
            "duration_s": options.duration,
            "churn_tables": options.churn,
        },
        "samples": samples,
        "rss_started_mb": samples[0]["rss_mb"],
        "rss_sockets_open_mb": samples[1]["rss_mb"],
        "rss_min_mb": min(s["rss_mb"] for s in idle) if idle else None,
        "rss_max_mb": max(s["rss_mb"] for s in idle) if idle else None,
        "rss_end_mb": samples[-1]["rss_mb"],
        "second_half_growth_mb": round(growth, 1),
        "second_half_s": span,
        "churn_moves": idle[-1]["churn_moves"] if idle else 0,
    }


def report(result: dict) -> str:
    o = result["options"]
    return "\n".join(
        [
            f"{o['sockets']} idle sockets on {o['games']} finished games, {o['churn_tables']} tables playing on, "
            f"{o['duration_s']:g} s",
            f"RSS: {result['rss_started_mb']} MB at start, {result['rss_sockets_open_mb']} MB with the sockets open, "
            f"{result['rss_min_mb']}-{result['rss_max_mb']} MB over the run, {result['rss_end_mb']} MB at the end",
            f"growth over the second half ({result['second_half_s']:.0f} s): {result['second_half_growth_mb']} MB; "
            f"churn moves {result['churn_moves']}",
        ]
    )
