"""Live-table benchmark: real websockets against a daphne it starts (`manage.py bench_tables`).

What it measures, for tables of 2 and of 6 seats:

- idle latency: one table, one action at a time; the time from sending the
  action frame ({"action": ...}) on the acting seat's socket until EVERY seat's
  socket has the state fragment showing the new move (p50/p99 ms);
- the most actions/s with p99 <= 10 ms: open-loop, actions scheduled at a fixed
  rate over many tables (latency counted from the scheduled time, so a server
  falling behind shows up), rising rates;
- saturation: every table acts again as soon as its last action reached all
  seats (closed loop); the actions/s achieved;
- the service path in this process, without sockets: one `do_player_move`
  (transaction, engine, move log; the group send after the commit is dropped),
  the table's snapshot read, one seat's rendering.

Setup, as `python3 dev.py serve` runs the site: one daphne process, SQLite in
WAL mode with persistent connections (a fresh database file in a temporary
directory, via SQLITE_PATH), the in-memory channel layer, the embedded Celery
worker and beat; DEBUG off. `relaunch` runs the measurement in a child process
with those settings; `measure` is that child's work. The client is one asyncio
process using the `websockets` library (no compression, no pings, as a browser
tab on a quiet page), on the same machine, so client and server share its
cores: the results include the CPU time of both.

The players' moves are chosen by the "heuristic" bot from a local copy of the
position (the engine is deterministic, so the client's copy follows the
server's); when a game ends the table deals again (outside the timing) and its
sockets reconnect.

The floor (unless `--no-floor`): a second daphne, same environment, its own port,
serves `bench.floor:application`: Channels, the same channel layer and
settings, ONE SQLite transaction and one `group_send` per action, and a frame shaped
like the site's (padded to `--floor-frame-bytes`), but no game logic. For each
table size the site is measured, then the floor (idle latency and saturation, not
the open-loop rates), with the same client, so both see the same machine; the
report gives the site's share of the floor. Both servers stay up for the whole run:
the CPU time of the idle one during the other's run is recorded (`background_s`).
The saturation rows also carry the CPU ms per action of the server and of the client.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management import call_command
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.floor_frames import DEFAULT_FLOOR_FRAME_BYTES, FLOOR_APPLICATION, FLOOR_FRAME_BYTES_ENV

INSIDE = "DURAK_BENCH_INSIDE"  # set in the child that measures
# (the whole state on connect, `#table-meta` beside the changed regions after a move)
STATE_RE = re.compile(rb'id="table-(?:state|meta)"[^>]*?data-game="(\d*)" data-moves="(\d*)"')
P99_TARGET_MS = 10.0
DEFAULT_RATES = {2: [25, 50, 75, 100, 150, 200, 300, 400, 600, 800], 6: [10, 25, 50, 75, 100, 150, 200, 300]}
SERVICE_PATH_MOVES = 200


class BenchFailed(Exception):
    """The benchmark could not run (the server did not start, a socket was refused...)."""


@dataclass(frozen=True)
class Options:
    seats: tuple[int, ...] = (2, 6)
    samples: int = 400  # actions for the idle latency
    rates: tuple[int, ...] = ()  # open-loop actions/s; empty: DEFAULT_RATES per table size
    duration: float = 4.0  # seconds per rate / saturation step
    tables: int = 0  # tables for the rate and saturation runs; 0: 16 of 2 seats, 8 of more
    debug: bool = False  # daphne with DEBUG on, as `dev.py serve`
    celery: bool = True  # the embedded Celery worker and beat in the server
    json_path: str = ""  # also write the results there
    floor: bool = True  # also measure the framework floor (bench.floor) in the same run
    floor_frame_bytes: int = DEFAULT_FLOOR_FRAME_BYTES  # the floor's state frames (0: bare, small frames)

    def __post_init__(self):
        for n in self.seats:
            if not 2 <= n <= 6:
                raise BenchFailed("tables seat 2 to 6 players")
        if self.floor_frame_bytes < 0:
            raise BenchFailed("the floor's frames cannot be smaller than 0 bytes")

    def arguments(self) -> list[str]:
        """The command line that gives these options to `bench_tables`."""
        args = [
            f"--seats={','.join(map(str, self.seats))}",
            f"--samples={self.samples}",
            f"--rates={','.join(map(str, self.rates))}",
            f"--duration={self.duration}",
            f"--tables={self.tables}",
        ]
        args += ["--debug"] * self.debug + ["--no-celery"] * (not self.celery) + ["--no-floor"] * (not self.floor)
        args.append(f"--floor-frame-bytes={self.floor_frame_bytes}")
        if self.json_path:
            args.append(f"--json={Path(self.json_path).resolve()}")
        return args


def inside() -> bool:
    return os.environ.get(INSIDE) == "1"


def relaunch(options: Options, write) -> int:
    """Run `manage.py bench_tables` again in a child with a fresh SQLite file and
    production-like settings; its output goes to ours. Returns its exit code."""
    workdir = tempfile.mkdtemp(prefix="durak-bench-")
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        {
            INSIDE: "1",
            "SQLITE_PATH": str(Path(workdir) / "bench.sqlite3"),
            "DEBUG": "true" if options.debug else "false",
            "SECRET_KEY": env.get("SECRET_KEY") or secrets.token_urlsafe(50),
            "LOG_LEVEL": "WARNING",
            "CELERY_EMBEDDED": "true" if options.celery else "false",
        }
    )
    manage = Path(settings.BASE_DIR) / "manage.py"
    write(f"bench_tables: database {env['SQLITE_PATH']}")
    try:
        return subprocess.call([sys.executable, str(manage), "bench_tables", *options.arguments()], env=env)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def measure(options: Options, write) -> dict:
    """The child's work: migrate the fresh database, start daphne (and the floor's),
    drive them, stop them."""
    call_command("migrate", verbosity=0, interactive=False)
    servers: list[Server] = []
    try:
        site = Server("site", free_port())
        site.process = start_daphne(site.port)
        servers.append(site)
        floor = None
        if options.floor:
            from bench import floor as floor_app

            floor_app.prepare_database()  # the counter table, before the floor's daphne opens the file
            floor = Server("floor", free_port())
            env = {FLOOR_FRAME_BYTES_ENV: str(options.floor_frame_bytes)}
            floor.process = start_daphne(floor.port, FLOOR_APPLICATION, env)
            servers.append(floor)
        results = asyncio.run(run_all(site, floor, options, write))
    finally:
        for server in servers:
            server.process.terminate()
        for server in servers:
            try:
                server.process.wait(15)
            except subprocess.TimeoutExpired:
                server.process.kill()
    results["machine"] = machine()
    results["settings"] = {
        "debug": settings.DEBUG,
        "database": "SQLite WAL, CONN_MAX_AGE=None",
        "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
        "celery_embedded": options.celery,
    }
    if options.floor:
        results["settings"]["floor"] = {"application": FLOOR_APPLICATION, "frame_bytes": options.floor_frame_bytes}
    if options.json_path:
        Path(options.json_path).write_text(json.dumps(results, indent=2))
    return results


# ---------------------------------------------------------------- server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A daphne this run started: "site" or "floor"."""

    name: str
    port: int
    process: subprocess.Popen | None = None

    @property
    def pid(self) -> int:
        return self.process.pid


def start_daphne(port: int, application: str = "durak_site.asgi:application", env: dict | None = None):
    """A daphne serving `application` on `port`, in this process's environment (plus `env`).
    Its sockets all come from this machine: the caps on open sockets per address and per
    user (durak_site.sockets) are off, as they are not what a benchmark measures."""
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-v", "0", "-b", "127.0.0.1", "-p", str(port), application],
        cwd=settings.BASE_DIR,
        env={**os.environ, "SOCKETS_PER_ADDRESS": "0", "SOCKETS_PER_USER": "0", **(env or {})},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchFailed("daphne did not start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise BenchFailed("daphne did not start listening")


def cpu_seconds(pid: int) -> float:
    """User+system CPU time of a process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def machine() -> dict:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": os.cpu_count(),
        "cpu": model or platform.processor(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
    }


# ---------------------------------------------------------------- one browser tab


class Socket:
    """One browser tab: a websocket to ws/table/<id>/ (or the floor's ws/floor/<id>/)
    that tracks the state it shows."""

    tally = [0, 0]  # frames carrying #table-state received by all sockets, and their bytes

    def __init__(self, connection: ClientConnection):
        self.connection = connection
        self.game = None
        self.moves = -1
        self.waiter: asyncio.Future | None = None
        self.want = None
        self.frames = 0
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, path: str, cookie: str = "") -> Socket:
        try:
            connection = await connect(
                f"ws://127.0.0.1:{port}{path}",
                origin=f"http://127.0.0.1:{port}",
                additional_headers={"Cookie": f"sessionid={cookie}"} if cookie else None,
                compression=None,  # the site's frames go uncompressed, as to a browser without deflate
                ping_interval=None,
                close_timeout=1,
                proxy=None,
                max_size=2**22,
            )
        except InvalidHandshake as refusal:
            raise BenchFailed(f"websocket refused: {refusal}") from None
        return cls(connection)

    async def _read(self):
        try:
            while True:
                payload = await self.connection.recv(decode=False)  # bytes: no decoding of 5-8 KB frames
                self.frames += 1
                found = STATE_RE.search(payload)
                if found:
                    Socket.tally[0] += 1
                    Socket.tally[1] += len(payload)
                    game, moves = found.groups()
                    self.game = int(game) if game else None
                    self.moves = int(moves) if moves else 0
                    if self.waiter is not None and not self.waiter.done() and self.reached(*self.want):
                        self.waiter.set_result(time.perf_counter())
        except (ConnectionClosed, asyncio.CancelledError):
            return

    def reached(self, game: int, moves: int) -> bool:
        return self.game == game and self.moves >= moves

    def expect(self, game: int, moves: int) -> asyncio.Future:
        self.want = (game, moves)
        self.waiter = asyncio.get_running_loop().create_future()
        if self.reached(game, moves):
            self.waiter.set_result(time.perf_counter())
        return self.waiter

    async def send(self, text: str) -> None:
        await self.connection.send(text)

    async def close(self):
        await self.connection.close()
        self.task.cancel()


# ---------------------------------------------------------------- tables and players


def create_tables(count: int, seats: int) -> list[dict]:
    """Tables of `seats` signed-in players, dealt; their sessions and positions."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from games import engine
    from games.services import tables

    User = get_user_model()
    created = []
    for _ in range(count):
        users = [User.objects.create_user(f"bench-{secrets.token_hex(5)}") for _ in range(seats)]
        cookies = []
        for user in users:
            client = Client()
            client.force_login(user)
            cookies.append(client.cookies["sessionid"].value)
        table = tables.do_create_table(rules=engine.Rules(players=seats), host=users[0], seat_users=users, start=True)
        created.append({"table": table.pk, "users": [u.pk for u in users], "cookies": cookies})
    return created


def deal_again(table_id: int, host_id: int):
    from games.services import tables

    game = tables.do_deal_next_game(table_id=table_id)  # the bench deals: no "play again" round trip
    return game.pk, game.state_json


def current_game(table_id: int):
    from games.models import Game

    game = Game.objects.filter(table_id=table_id).order_by("-number").first()
    return game.pk, game.state_json


class Table:
    def __init__(self, port: int, info: dict):
        from games import bots

        self.port = port
        self.id = info["table"]
        self.users = info["users"]
        self.cookies = info["cookies"]
        self.sockets: list[Socket] = []
        self.bot = bots.get_bot("heuristic", seed=self.id)
        self.game_id = None
        self.position = None
        self.moves = 0

    async def connect(self):
        from games import engine

        self.game_id, state = await sync_to_async(current_game)(self.id)
        self.position = engine.Game.from_json(state)
        self.moves = 0
        self.sockets = [await Socket.open(self.port, f"/ws/table/{self.id}/", c) for c in self.cookies]
        await asyncio.gather(*(s.expect(self.game_id, 0) for s in self.sockets))

    async def close(self):
        for s in self.sockets:
            await s.close()

    def next_action(self):
        seat = self.position.to_move()[0]
        return seat, self.bot.choose(self.position.view(seat))

    async def act(self, scheduled: float | None = None) -> float:
        """One action; seconds until every seat shows it (from `scheduled` when given)."""
        seat, action = self.next_action()
        target = self.moves + 1
        waits = [s.expect(self.game_id, target) for s in self.sockets]
        start = time.perf_counter()
        await self.sockets[seat].send(json.dumps({"action": action}))
        done = await asyncio.wait_for(asyncio.gather(*waits), timeout=30)
        self.position.act(seat, action)
        self.moves = target
        elapsed = max(done) - (scheduled if scheduled is not None else start)
        if self.position.is_over:
            await self.new_game()
        return elapsed

    async def new_game(self):
        await self.close()
        await sync_to_async(deal_again)(self.id, self.users[0])
        await self.connect()


class FloorTable:
    """A table of the floor (bench.floor): its sockets, a dummy action, a local move count."""

    ACTION = "floor"
    _ids = iter(range(1, 10**9))  # one id per table of the run: each has its own counter row

    def __init__(self, port: int, seats: int):
        self.port = port
        self.id = next(FloorTable._ids)
        self.seats = seats
        self.game_id = self.id  # the floor's frames show the table id as their game
        self.sockets: list[Socket] = []
        self.moves = 0

    async def connect(self):
        self.sockets = [await Socket.open(self.port, f"/ws/floor/{self.id}/") for _ in range(self.seats)]
        await asyncio.gather(*(s.expect(self.game_id, 0) for s in self.sockets))
        self.moves = max(s.moves for s in self.sockets)

    async def close(self):
        for s in self.sockets:
            await s.close()

    async def act(self, scheduled: float | None = None) -> float:
        """One action, from the seats in turn; seconds until every seat shows it."""
        seat = self.moves % self.seats
        target = self.moves + 1
        waits = [s.expect(self.game_id, target) for s in self.sockets]
        start = time.perf_counter()
        await self.sockets[seat].send(json.dumps({"action": self.ACTION}))
        done = await asyncio.wait_for(asyncio.gather(*waits), timeout=30)
        self.moves = target
        return max(done) - (scheduled if scheduled is not None else start)


async def open_floor_tables(port, count, seats):
    tables = [FloorTable(port, seats) for _ in range(count)]
    for table in tables:
        await table.connect()
    return tables


# ---------------------------------------------------------------- the runs


def pct(values, q):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def summary(latencies_s):
    ms = [x * 1000 for x in latencies_s]
    return {
        "n": len(ms),
        "p50": round(pct(ms, 50), 2),
        "p99": round(pct(ms, 99), 2),
        "mean": round(statistics.fmean(ms), 2) if ms else None,
    }


async def open_tables(port, count, seats):
    infos = await sync_to_async(create_tables)(count, seats)
    tables = [Table(port, info) for info in infos]
    for table in tables:
        await table.connect()
    return tables


async def idle_latency(open_some, samples):
    """One table (from `open_some(1)`), one action at a time."""
    (table,) = await open_some(1)
    for _ in range(20):  # warm up
        await table.act()
        await asyncio.sleep(0.002)
    latencies = []
    for _ in range(samples):
        latencies.append(await table.act())
        await asyncio.sleep(0.005)  # idle: the server is quiet when the action arrives
    await table.close()
    return summary(latencies)


async def open_loop(tables, rate, duration):
    """Actions at a fixed rate over the tables (each table one action at a time)."""
    idle: asyncio.Queue = asyncio.Queue()
    for table in tables:
        idle.put_nowait(table)
    latencies = []
    errors = 0

    async def one(table, scheduled):
        nonlocal errors
        try:
            latencies.append(await table.act(scheduled))
        except (TimeoutError, ConnectionClosed, ConnectionError):
            errors += 1
        idle.put_nowait(table)

    start = time.perf_counter()
    total = int(rate * duration)
    pending = []
    for i in range(total):
        scheduled = start + i / rate
        delay = scheduled - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        table = await idle.get()
        pending.append(asyncio.create_task(one(table, scheduled)))
    await asyncio.gather(*pending)
    elapsed = time.perf_counter() - start
    return {"rate": rate, "achieved": round(len(latencies) / elapsed, 1), "errors": errors, **summary(latencies)}


def per_action_ms(seconds: float, actions: int):
    return round(1000 * seconds / actions, 3) if actions else None


async def closed_loop(tables, duration, server_pid: int):
    """Every table acts again as soon as its last action reached all seats; the actions/s,
    and the CPU ms per action of the server (all its threads) and of this client."""
    latencies = []
    stop = time.perf_counter() + duration

    async def drive(table):
        while time.perf_counter() < stop:
            latencies.append(await table.act())

    cpu0, client0 = cpu_seconds(server_pid), time.process_time()
    start = time.perf_counter()
    await asyncio.gather(*(drive(t) for t in tables))
    elapsed = time.perf_counter() - start
    server_s, client_s = cpu_seconds(server_pid) - cpu0, time.process_time() - client0
    return {
        "tables": len(tables),
        "achieved": round(len(latencies) / elapsed, 1),
        **summary(latencies),
        "server_cpu_ms_per_action": per_action_ms(server_s, len(latencies)),
        "client_cpu_ms_per_action": per_action_ms(client_s, len(latencies)),
    }


async def saturation(tables, duration, server_pid, say):
    """The closed loop with all the tables and with half of them: the better of the two."""
    best = None
    for count_tables in sorted({len(tables), max(2, len(tables) // 2)}):
        row = await closed_loop(tables[:count_tables], duration, server_pid)
        say(f"  saturation {row}")
        if best is None or row["achieved"] > best["achieved"]:
            best = row
    return best


def frame_bytes_since(start: list) -> int | None:
    """Mean bytes of the state frames received since `start` (a copy of Socket.tally)."""
    frames, size = Socket.tally[0] - start[0], Socket.tally[1] - start[1]
    return round(size / frames) if frames else None


def share(site: dict, floor: dict, seats: int) -> dict:
    """The site as a share of the floor: saturation in % of the floor's, idle p50 as a factor."""
    site_sat, floor_sat = site["saturation"][seats]["achieved"], floor["saturation"][seats]["achieved"]
    site_p50, floor_p50 = site["idle"][seats]["p50"], floor["idle"][seats]["p50"]
    return {
        "saturation_pct": round(100 * site_sat / floor_sat, 1) if floor_sat else None,
        "idle_p50_factor": round(site_p50 / floor_p50, 2) if floor_p50 else None,
    }


async def run_site(results, site: Server, floor: Server | None, seats: int, options: Options, say):
    """The site's runs for one table size: idle latency, open-loop rates, saturation."""
    cpu0, client0 = cpu_seconds(site.pid), time.process_time()
    background0 = cpu_seconds(floor.pid) if floor else None
    frames0 = list(Socket.tally)
    say(f"tables of {seats}: idle latency ({options.samples} actions)...")
    results["idle"][seats] = await idle_latency(lambda n: open_tables(site.port, n, seats), options.samples)
    results["frame_bytes"][seats] = frame_bytes_since(frames0)
    say(f"  {results['idle'][seats]}")
    count = options.tables or (16 if seats == 2 else 8)
    tables = await open_tables(site.port, count, seats)
    rates = list(options.rates) or DEFAULT_RATES.get(seats, [50, 100])
    results["rates"][seats] = []
    for rate in rates:
        row = await open_loop(tables, rate, options.duration)
        results["rates"][seats].append(row)
        say(f"  open loop {row}")
        if row["p99"] > 5 * P99_TARGET_MS or row["achieved"] < 0.8 * rate:
            break
        await asyncio.sleep(0.3)
    sustained = [r for r in results["rates"][seats] if r["p99"] <= P99_TARGET_MS and not r["errors"]]
    results["best_rate"][seats] = max((r["rate"] for r in sustained), default=None)
    results["saturation"][seats] = await saturation(tables, options.duration, site.pid, say)
    for table in tables:
        await table.close()
    results["cpu"][seats] = {
        "server_s": round(cpu_seconds(site.pid) - cpu0, 1),
        "client_s": round(time.process_time() - client0, 1),
    }
    if floor:  # the idle floor's daphne meanwhile
        results["floor"]["background_s"][seats] = {"floor_during_site": round(cpu_seconds(floor.pid) - background0, 1)}


async def run_floor(results, floor: Server, site: Server, seats: int, options: Options, say):
    """The floor's runs for one table size, as the site's: idle latency and saturation."""
    cpu0, client0, background0 = cpu_seconds(floor.pid), time.process_time(), cpu_seconds(site.pid)
    frames0 = list(Socket.tally)
    say(f"floor, tables of {seats}: idle latency ({options.samples} actions)...")
    results["idle"][seats] = await idle_latency(lambda n: open_floor_tables(floor.port, n, seats), options.samples)
    results["frame_bytes"][seats] = frame_bytes_since(frames0)
    say(f"  {results['idle'][seats]}")
    tables = await open_floor_tables(floor.port, options.tables or (16 if seats == 2 else 8), seats)
    results["saturation"][seats] = await saturation(tables, options.duration, floor.pid, say)
    for table in tables:
        await table.close()
    results["cpu"][seats] = {
        "server_s": round(cpu_seconds(floor.pid) - cpu0, 1),
        "client_s": round(time.process_time() - client0, 1),
    }
    results["background_s"][seats]["site_during_floor"] = round(cpu_seconds(site.pid) - background0, 1)


async def run_all(site: Server, floor: Server | None, options: Options, say):
    """Per table size, the site, then the floor (so both see the same machine); then the
    service path in this process."""
    results = {"idle": {}, "rates": {}, "best_rate": {}, "saturation": {}, "cpu": {}, "frame_bytes": {}}
    if floor:
        results["floor"] = {"idle": {}, "saturation": {}, "cpu": {}, "frame_bytes": {}, "background_s": {}}
        results["share"] = {}
    for seats in options.seats:
        await run_site(results, site, floor, seats, options, say)
        if floor:
            await run_floor(results["floor"], floor, site, seats, options, say)
            results["share"][seats] = share(results, results["floor"], seats)
            say(f"  site's share of the floor {results['share'][seats]}")
    results["service_path"] = await sync_to_async(service_path_costs)(options.seats)
    return results


def _drop_group_sends(layer, group, message) -> bool:
    return True  # "sent": the in-process run has no sockets to tell


def service_path_costs(seat_sizes) -> dict:
    """Where the time goes, in this process: one do_player_move (transaction, engine,
    move log; the snapshot for the group is built, its send dropped), the table's
    snapshot read, one seat's whole rendering of it (`live_fragments`, as on connect),
    and what the sockets of every seat render after the move (`LiveView.update`
    of each, with the shared regions of the move: the live path, without log lines)."""
    from django.contrib.auth import get_user_model
    from django.utils import translation

    from games import bots, engine
    from games.selectors import table_snapshot
    from games.services import notify, play
    from games.table import presenters, rendering

    out = {}
    notify.set_group_sender(_drop_group_sends)
    try:
        for seats in seat_sizes:
            info = create_tables(1, seats)[0]
            users = {u.pk: u for u in get_user_model().objects.filter(pk__in=info["users"])}
            table_id = info["table"]
            timings = {"do_player_move": [], "table_snapshot": [], "render_one_seat": [], "update_every_seat": []}
            views = {seat: rendering.LiveView("ru", "") for seat in range(seats)}
            made = 0
            while made < SERVICE_PATH_MOVES:
                game_id, state = current_game(table_id)
                position = engine.Game.from_json(state)
                if position.is_over:
                    deal_again(table_id, info["users"][0])
                    continue
                seat = position.to_move()[0]
                action = bots.get_bot("heuristic", seed=made).choose(position.view(seat))
                t0 = time.perf_counter()
                play.do_player_move(game_id=game_id, user=users[info["users"][seat]], action=action)
                t1 = time.perf_counter()
                snapshot = table_snapshot(table_id)
                t2 = time.perf_counter()
                context = presenters.table_context(snapshot, seat, [], viewer_id=info["users"][seat])
                rendering.live_fragments(context, "ru", "")
                t3 = time.perf_counter()
                with translation.override("ru"):
                    shared = rendering.shared_regions_of(snapshot, "ru", key=f"bench-{table_id}-{made}")
                    for n, view in views.items():
                        viewer = presenters.table_context(
                            snapshot, n, [], viewer_id=info["users"][n], spectator=shared.context
                        )
                        if view.regions:
                            view.update(viewer, shared)
                        else:
                            view.full(viewer)
                t4 = time.perf_counter()
                timings["do_player_move"].append(t1 - t0)
                timings["table_snapshot"].append(t2 - t1)
                timings["render_one_seat"].append(t3 - t2)
                timings["update_every_seat"].append(t4 - t3)
                made += 1
            out[seats] = {name: summary(values) for name, values in timings.items()}
    finally:
        notify.set_group_sender(None)
    return out


def report(results) -> str:
    m = results["machine"]
    lines = [
        "",
        f"machine: {m['nproc']} CPUs, {m['cpu']}, Python {m['python']}, {m['date']}",
        f"settings: {results['settings']}",
        "",
        "| table | idle p50 ms | idle p99 ms | most actions/s with p99 <= 10 ms | saturation actions/s (p99 ms) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for seats, idle in results["idle"].items():
        sat = results["saturation"].get(seats) or {}
        best = results["best_rate"].get(seats)
        lines.append(
            f"| {seats} seats | {idle['p50']} | {idle['p99']} | {best if best else '< lowest rate'} | "
            f"{sat.get('achieved')} ({sat.get('p99')}) |"
        )
    lines.append("")
    for seats, rows in results["rates"].items():
        if rows:
            lines.append(
                f"open loop, {seats} seats: "
                + "; ".join(f"{r['rate']}/s -> p50 {r['p50']} p99 {r['p99']}" for r in rows)
            )
    lines.append(f"CPU seconds (server daphne / client) per table size: {results['cpu']}")
    lines.append("service path, in-process (ms):")
    for seats, costs in results["service_path"].items():
        lines.append(f"  {seats} seats: " + ", ".join(f"{k} p50 {v['p50']} p99 {v['p99']}" for k, v in costs.items()))
    lines.append(
        "CPU ms per action at saturation (server daphne / client): "
        + "; ".join(f"{seats} seats {cpu_per_action(sat)}" for seats, sat in results["saturation"].items())
    )
    lines.append(
        "state frames, mean bytes: " + "; ".join(f"{seats} seats {b}" for seats, b in results["frame_bytes"].items())
    )
    if "floor" in results:
        lines += floor_report(results)
    return "\n".join(lines) + "\n"


def cpu_per_action(sat: dict | None) -> str:
    sat = sat or {}
    return f"{sat.get('server_cpu_ms_per_action')} / {sat.get('client_cpu_ms_per_action')}"


def floor_report(results) -> list[str]:
    floor = results["floor"]
    frame = results["settings"].get("floor", {}).get("frame_bytes")
    lines = [
        "",
        f"floor, same run and client ({FLOOR_APPLICATION}: one SQLite transaction and one group_send "
        f"per action, no game logic; frames padded to {frame} bytes):",
        "",
        "| table | floor idle p50 ms | floor idle p99 ms | floor saturation actions/s (p99 ms) | "
        "site saturation, % of floor | site idle p50 / floor | server CPU ms/action, site / floor |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for seats, idle in floor["idle"].items():
        sat = floor["saturation"].get(seats) or {}
        site_sat = results["saturation"].get(seats) or {}
        ratio = results["share"].get(seats) or {}
        lines.append(
            f"| {seats} seats | {idle['p50']} | {idle['p99']} | {sat.get('achieved')} ({sat.get('p99')}) | "
            f"{ratio.get('saturation_pct')} % | {ratio.get('idle_p50_factor')}x | "
            f"{site_sat.get('server_cpu_ms_per_action')} / {sat.get('server_cpu_ms_per_action')} |"
        )
    lines.append("")
    lines.append(
        "floor: CPU ms per action at saturation (server daphne / client): "
        + "; ".join(f"{seats} seats {cpu_per_action(sat)}" for seats, sat in floor["saturation"].items())
    )
    lines.append(
        "floor: state frames, mean bytes: "
        + "; ".join(f"{seats} seats {b}" for seats, b in floor["frame_bytes"].items())
    )
    lines.append(f"floor: CPU seconds (server daphne / client) per table size: {floor['cpu']}")
    lines.append(f"the idle server's CPU seconds during the other's runs: {floor['background_s']}")
    return lines
