"""Load test of a RUNNING site: bot players over real websockets (`manage.py loadtest`).

    python manage.py loadtest --url http://127.0.0.1:8000 --tables 50 --seats 2 --duration 30 --pace 2

What it does:

1. Setup, over HTTP only, as people would (each player from an address of
   its own in X-Forwarded-For: run the site with `daphne --proxy-headers`,
   as behind a balancer, or its per-address limits on new guests and
   sign-ups refuse most players): every player becomes a guest
   (POST /guest/ with the CSRF token of the home page: no password hashing;
   that also opens a private table against a bot, which is left alone) or,
   with `--signup`, signs up through the sign-up form; the first player of
   each table opens a public table of `--seats` (POST /tables/new/), the
   others take its seats (POST /t/<id>/join/); the last one deals.
2. Play: every seat of a table opens ws/table/<id>/ with its session cookie.
   Tables are spread over `--processes` client processes (each one asyncio
   loop, the `websockets` library). Each table acts once per `--pace` seconds
   (its first action at a random phase): a seat whose page shows legal moves
   (the data-action / data-targets of its hand and buttons in its own state
   fragment) sends one of them as {"action": ...}, as a click does; the time
   from that send to the moment EVERY seat's socket shows the new move count
   is the action's latency. A table whose action is not over when its next
   one is due acts as soon as it is (it is late: counted). A finished game is
   dealt again when every seat has pressed "play again" (POST /t/<id>/start/
   from each person: the last press deals), outside the timing.
3. Check: every move the clients saw accepted must be in the game's move log
   exactly once, at the number they saw, and the log must hold nothing else
   (`lost` counts moves missing, doubled or foreign). The check reads the
   database with the ORM: this command's own settings (run it with the
   server's DATABASE_URL / SQLITE_PATH), or `--database-url` (the command
   runs itself again with that DATABASE_URL). The record pages show a game's
   moves only once it is over, so they cannot check a game cut off mid-play.

`--url` may list several addresses, comma-separated (the site's server
processes, without a balancer): player number i of the run uses address
i mod n, so with tables of two on two processes every table has a player on
each. `--pids` names server processes on this machine (and Redis): their CPU
time over the measured window is reported, per action, since on a shared
machine the latency alone says little.

Errors: refused actions, actions with no update within `--timeout`, sockets
closed by the server, failed HTTP calls. The report names the slowest actions
with the wall-clock (UTC) time each was sent (all 20 in `--json`'s "slowest"),
to set beside what the server did at that moment. The last line of the report is
`actions_per_s=<n> p99_ms=<n> lost=<n>`.
"""

from __future__ import annotations

import asyncio
import html
import http.cookiejar
import json
import multiprocessing
import os
import queue
import random
import re
import secrets
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

STATE_RE = re.compile(rb'data-game="(\d*)" data-moves="(\d*)"')
ERROR_RE = re.compile(rb'<div id="table-error"[^>]*>(.*?)</div>', re.S)
TAG_RE = re.compile(rb"<(?:button|input)\b[^>]*>")
ACTION_RE = re.compile(rb'data-action="([^"]+)"')
TARGETS_RE = re.compile(rb'data-targets="([^"]+)"')
CARD_RE = re.compile(rb'data-card="([^"]+)"')
RESULT_MARK = b'class="t-result"'
# The table's regions (templates/games/table/partials/state.html): a move sends only the
# regions that changed, each by id, so a seat's legal moves are read from the regions it
# holds now, as htmx's out-of-band swaps would leave them in a page.
REGION_RE = re.compile(
    rb'<[a-z]+\b[^>]*\bid="(t-(?:head|seats-top|seats-left|seats-right|deck|pairs|discard|turn|bottom|fair|result|resign|seating))"'
)
FULL_STATE_MARK = b'id="table-state"'
TABLE_URL_RE = re.compile(r"/table/(\d+)/")
CSRF_COOKIE = "csrftoken"
SESSION_COOKIE = "sessionid"
SLOWEST = 20  # the slowest actions kept with their wall-clock times (report, --json)
CHILD = "DURAK_LOADTEST_CHECK"  # set in a re-run that only checks the logs of another database


class LoadFailed(Exception):
    """The load test could not run (the site did not answer, a sign-up failed...)."""


@dataclass(frozen=True)
class Options:
    url: str
    tables: int = 10
    seats: int = 2
    duration: float = 20.0
    pace: float = 1.0
    processes: int = 2
    timeout: float = 10.0
    signup: bool = False
    warmup: float = 3.0  # seconds of play before the measured window
    seed: int | None = None
    pids: tuple[int, ...] = ()  # server processes on this machine: their CPU time is reported

    def __post_init__(self):
        if not 2 <= self.seats <= 6:
            raise LoadFailed("tables seat 2 to 6 players")
        if self.tables < 1 or self.duration <= 0 or self.pace <= 0 or self.processes < 1:
            raise LoadFailed("tables, duration, pace and processes must be positive")
        for url in self.urls:
            parts = urllib.parse.urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise LoadFailed(f"--url must be http(s)://host:port (comma-separated for several), got {url!r}")

    @property
    def urls(self) -> list[str]:
        """The site's address, or the addresses of its server processes (players spread over them)."""
        return [u.strip().rstrip("/") for u in self.url.split(",") if u.strip()]

    @property
    def base(self) -> str:
        return ", ".join(self.urls)


# ------------------------------------------------------------------ players over HTTP


class Browser:
    """One person's cookies and forms, over plain HTTP (urllib)."""

    def __init__(self, base: str, timeout: float = 30.0):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        # An address of its own, as people have: the site limits guests and sign-ups per
        # address. It counts only where the server trusts the header (daphne --proxy-headers,
        # as behind a balancer); without it every player comes from the client's address.
        address = f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{1 + secrets.randbelow(254)}"
        self.address = address
        self.opener.addheaders = [("X-Forwarded-For", address)]
        self.timeout = timeout

    def cookie(self, name: str) -> str:
        for c in self.jar:
            if c.name == name:
                return c.value
        return ""

    def get(self, path: str) -> tuple[str, str]:
        with self.opener.open(self.base + path, timeout=self.timeout) as response:
            return response.geturl(), response.read().decode()

    def post(self, path: str, fields: dict) -> str:
        """POST a form with the CSRF token; the final URL after redirects."""
        token = self.cookie(CSRF_COOKIE)
        if not token:
            self.get("/")  # every page with a form sets the CSRF cookie
            token = self.cookie(CSRF_COOKIE)
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
        request = urllib.request.Request(
            self.base + path, data=data, headers={"Referer": self.base + path, "X-CSRFToken": token}
        )
        with self.opener.open(request, timeout=self.timeout) as response:
            response.read()
            return response.geturl()

    def become_guest(self) -> None:
        self.get("/")
        self.post("/guest/", {})
        if not self.cookie(SESSION_COOKIE):
            raise LoadFailed("the guest sign-in gave no session cookie (SESSION_COOKIE_SECURE over http?)")

    def sign_up(self, name: str) -> None:
        self.get("/signup/")
        password = secrets.token_urlsafe(12)
        self.post("/signup/", {"username": name, "password1": password, "password2": password})
        if not self.cookie(SESSION_COOKIE):
            raise LoadFailed("the sign-up gave no session cookie")


def new_player(base: str, signup: bool = False, tag: str = "") -> Browser:
    """A signed-in browser: a new guest, or (signup) a new account through the sign-up form."""
    browser = Browser(base)
    if signup:
        browser.sign_up(f"lt-{tag or secrets.token_hex(3)}-{secrets.token_hex(5)}")
    else:
        browser.become_guest()
    return browser


def new_table(host: Browser, seats: int, *, turn_seconds: int | None = None, bot_level: str = "") -> int:
    """The host opens a public podkidnoy table of `seats` (36 cards) through the form; its id."""
    host.get("/tables/new/")
    landed = host.post(
        "/tables/new/",
        {
            "variant": "podkidnoy",
            "players": seats,
            "deck": 36,
            "first_bout_limit": 5,
            "throw_in": "all",
            "turn_seconds": turn_seconds or "",
            "visibility": "public",
            "bot_level": bot_level,
        },
    )
    found = TABLE_URL_RE.search(landed)
    if not found:
        raise LoadFailed(f"opening a table did not lead to its page (landed on {landed})")
    return int(found.group(1))


def open_table(options: Options, run_tag: str, first: int = 0) -> dict:
    """Seat `options.seats` new players at a new public table (dealt by the last join); with
    several addresses, player number `first + i` uses the server process `(first + i) % n`."""
    urls = options.urls
    people = [new_player(urls[(first + i) % len(urls)], options.signup, run_tag) for i in range(options.seats)]
    table_id = new_table(people[0], options.seats)
    for browser in people[1:]:
        browser.post(f"/t/{table_id}/join/", {})
    return {"table": table_id, "people": people}


# ------------------------------------------------------------------ one seat's socket


def split_regions(frame: bytes) -> dict[bytes, bytes]:
    """The frame's table regions by id, each running to the next region's start (the
    regions are siblings in a frame and in the page, never nested in one another)."""
    starts = [(match.start(), match.group(1)) for match in REGION_RE.finditer(frame)]
    return {
        region: frame[start : starts[k + 1][0] if k + 1 < len(starts) else len(frame)]
        for k, (start, region) in enumerate(starts)
    }


def legal_actions(frame: bytes) -> list[str]:
    """What a click may send, from the seat's own state fragment: the data-action of its
    buttons and hand cards, and "defend <target> with <card>" for every data-targets."""
    found = []
    for tag in TAG_RE.findall(frame):
        action = ACTION_RE.search(tag)
        if action:
            found.append(html.unescape(action.group(1).decode()))
        targets = TARGETS_RE.search(tag)
        card = CARD_RE.search(tag)
        if targets and card:
            code = card.group(1).decode()
            found += [f"defend {t} with {code}" for t in targets.group(1).decode().split()]
    return list(dict.fromkeys(found))


class Seat:
    """One player's websocket; tracks the game and move count its page shows."""

    def __init__(self, connection):
        self.connection = connection
        self.game: int | None = None
        self.moves = -1
        self.legal: list[str] = []
        self.over = False
        self.regions: dict[bytes, bytes] = {}  # what the page holds now, region by region
        self.closed = False
        self.changed = asyncio.Event()
        self.errors: asyncio.Queue[str] = asyncio.Queue()
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, base: str, table_id: int, session: str, timeout: float = 10.0, address: str = "") -> Seat:
        """The socket of the table page at `base` (http://host:port) with this session."""
        from websockets.asyncio.client import connect

        parts = urllib.parse.urlsplit(base)
        ws_base = ("wss" if parts.scheme == "https" else "ws") + "://" + parts.netloc
        connection = await connect(
            f"{ws_base}/ws/table/{table_id}/",
            origin=f"{parts.scheme}://{parts.netloc}",
            # (the player's own address, like his pages: the site caps sockets per address)
            additional_headers={
                "Cookie": f"{SESSION_COOKIE}={session}",
                **({"X-Forwarded-For": address} if address else {}),
            },
            compression=None,
            ping_interval=None,
            close_timeout=1,
            open_timeout=timeout * 3,
            proxy=None,
            max_size=2**22,
        )
        return cls(connection)

    async def _read(self):
        from websockets.exceptions import ConnectionClosed

        try:
            async for payload in self.connection:
                if isinstance(payload, str):
                    payload = payload.encode()
                found = STATE_RE.search(payload)
                if found:
                    game, moves = found.groups()
                    self.game = int(game) if game else None
                    self.moves = int(moves) if moves else 0
                    if FULL_STATE_MARK in payload:  # the whole table: nothing of before is left
                        self.regions = {}
                    self.regions.update(split_regions(payload))
                    page = b"".join(self.regions.values())
                    self.legal = legal_actions(page)
                    self.over = RESULT_MARK in page
                error = ERROR_RE.search(payload)
                if error:
                    self.errors.put_nowait(html.unescape(error.group(1).decode()).strip())
                self.changed.set()
        except (ConnectionClosed, OSError):
            pass
        finally:
            self.closed = True
            self.changed.set()

    async def wait_for(self, test, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not test():
            if self.closed:
                return False
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                return test()
        return True

    async def close(self):
        await self.connection.close()
        self.task.cancel()


# ------------------------------------------------------------------ one table


@dataclass
class Tally:
    latencies_ms: list = field(default_factory=list)  # actions in the measured window
    # [wall-clock time the action was sent, ms, table id] of the same actions: the slowest
    # are reported with their times, to set beside the server's own log of what it did then
    timed: list = field(default_factory=list)
    actions: int = 0
    late: int = 0
    refused: int = 0
    timeouts: int = 0
    closed: int = 0
    stuck: int = 0
    http_errors: int = 0
    deals: int = 0
    # {game_id: {move number: [seat, action]}}: moves the clients saw accepted
    seen: dict = field(default_factory=dict)
    # {game_id: [[seat, action], ...]}: sent, never confirmed (a timeout): may or may not be logged
    unconfirmed: dict = field(default_factory=dict)
    games: set = field(default_factory=set)


class TableDriver:
    def __init__(self, options: Options, info: dict, tally: Tally, rng: random.Random):
        self.options = options
        self.table_id = info["table"]
        self.people = info["people"]
        self.host = self.people[0]
        self.tally = tally
        self.rng = rng
        self.seats: list[Seat] = []

    async def connect(self):
        o = self.options
        self.seats = [
            await Seat.open(b.base, self.table_id, b.cookie(SESSION_COOKIE), o.timeout, b.address) for b in self.people
        ]
        if not await self.wait_all(lambda s: s.game is not None, self.options.timeout):
            raise LoadFailed(f"table {self.table_id}: a seat saw no game")

    async def close(self):
        for s in self.seats:
            await s.close()

    def in_step(self) -> bool:
        first = self.seats[0]
        return all(s.game == first.game and s.moves == first.moves for s in self.seats)

    async def wait_all(self, test, timeout: float) -> bool:
        """Until test(seat) holds for every seat (each waits on its own socket's frames)."""
        ok = await asyncio.gather(*(s.wait_for(lambda s=s: test(s), timeout) for s in self.seats))
        return all(ok)

    async def play(self, start: float, measure_from: float, stop: float):
        """Act once per pace until `stop` (perf_counter times); count what happens."""
        pace = self.options.pace
        due = start + self.rng.random() * pace
        while True:
            now = time.perf_counter()
            if due >= stop:
                return
            if due > now:
                await asyncio.sleep(due - now)
            elif now - due > pace / 2:
                if due >= measure_from:
                    self.tally.late += 1
            due += pace
            if any(s.closed for s in self.seats):
                self.tally.closed += 1
                return
            await self.one_action(measured=time.perf_counter() >= measure_from)

    async def one_action(self, measured: bool):
        timeout = self.options.timeout
        if not self.in_step():
            # Behind: a seat still waits for the last move (or a deal); catch up first.
            top = max(self.seats, key=lambda s: (s.game or 0, s.moves))
            game, moves = top.game, top.moves
            if not await self.wait_all(lambda s: s.game != game or s.moves >= moves, timeout):
                self.tally.timeouts += 1
                return
            if not self.in_step():
                self.tally.stuck += 1
                return
        first = self.seats[0]
        game, moves = first.game, first.moves
        self.tally.games.add(game)
        if any(s.over for s in self.seats):
            await self.deal_again(game)
            return
        movers = [(i, s) for i, s in enumerate(self.seats) if s.legal]
        if not movers:
            self.tally.stuck += 1
            return
        number, seat = self.rng.choice(movers)
        action = self.choose(seat.legal)
        while not seat.errors.empty():
            seat.errors.get_nowait()
        sent, sent_wall = time.perf_counter(), time.time()
        await seat.connection.send(json.dumps({"action": action}))

        async def refusal() -> str:
            while True:
                text = await seat.errors.get()
                if text:
                    return text

        everyone = asyncio.ensure_future(self.wait_all(lambda s: s.game != game or s.moves > moves, timeout))
        refused = asyncio.ensure_future(refusal())
        done, _ = await asyncio.wait({everyone, refused}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        refused.cancel()
        if refused in done:
            everyone.cancel()
            self.tally.refused += 1
            return
        if everyone not in done or not everyone.result():
            everyone.cancel()
            self.tally.timeouts += 1
            self.tally.unconfirmed.setdefault(game, []).append([number, action])
            return
        elapsed_ms = (time.perf_counter() - sent) * 1000
        self.tally.seen.setdefault(game, {})[moves] = [number, action]
        self.tally.actions += 1
        if measured:
            self.tally.latencies_ms.append(elapsed_ms)
            self.tally.timed.append([round(sent_wall, 3), round(elapsed_ms, 1), self.table_id])

    def choose(self, legal: list[str]) -> str:
        """Mostly the first card a person would play; taking only now and then."""
        keep = [a for a in legal if a != "take"]
        if keep and (len(keep) == len(legal) or self.rng.random() < 0.85):
            return self.rng.choice(keep)
        return self.rng.choice(legal)

    async def deal_again(self, game: int):
        try:
            for person in self.people:  # every person agrees to play again; the last press deals
                await asyncio.to_thread(person.post, f"/t/{self.table_id}/start/", {})
        except (urllib.error.URLError, OSError):
            self.tally.http_errors += 1
            return
        self.tally.deals += 1
        if not await self.wait_all(lambda s: s.game != game and not s.over, self.options.timeout):
            self.tally.timeouts += 1


# ------------------------------------------------------------------ client processes


def client_process(index: int, options: Options, count: int, ready, go, results) -> None:
    """One client process: set up its tables over HTTP, then play them on one event loop."""
    rng = random.Random(None if options.seed is None else options.seed * 1000 + index)
    tally = Tally()
    run_tag = secrets.token_hex(3)
    try:
        infos = [open_table(options, run_tag, first=(index + i) * options.seats + index) for i in range(count)]
        tally_or_error = asyncio.run(_play(options, infos, tally, rng, ready, go))
    except Exception as error:  # reported to the parent, which fails the run
        ready.put((index, f"{type(error).__name__}: {error}"))
        results.put((index, {"error": f"{type(error).__name__}: {error}"}))
        return
    results.put((index, tally_or_error))


async def _play(options, infos, tally, rng, ready, go):
    drivers = [TableDriver(options, info, tally, rng) for info in infos]
    for driver in drivers:
        await driver.connect()
    ready.put((os.getpid(), ""))
    start_wall = await asyncio.to_thread(go.get)  # the common start, wall clock
    start = time.perf_counter() + (start_wall - time.time())
    measure_from = start + options.warmup
    stop = measure_from + options.duration
    await asyncio.sleep(max(0.0, start - time.perf_counter()))
    cpu0 = time.process_time()
    await asyncio.gather(*(d.play(start, measure_from, stop) for d in drivers))
    cpu = time.process_time() - cpu0
    for driver in drivers:
        await driver.close()
    return {
        "latencies_ms": tally.latencies_ms,
        "slowest": sorted(tally.timed, key=lambda t: -t[1])[:SLOWEST],
        "actions": tally.actions,
        "measured": len(tally.latencies_ms),
        "late": tally.late,
        "refused": tally.refused,
        "timeouts": tally.timeouts,
        "closed": tally.closed,
        "stuck": tally.stuck,
        "http_errors": tally.http_errors,
        "deals": tally.deals,
        "seen": {str(g): moves for g, moves in tally.seen.items()},
        "unconfirmed": {str(g): moves for g, moves in tally.unconfirmed.items()},
        "games": sorted(g for g in tally.games if g is not None),
        "client_cpu_s": cpu,
    }


def run(options: Options, write) -> dict:
    """Set up, play and collect; the move-log check is `check_logs` (needs Django)."""
    context = multiprocessing.get_context("spawn")  # the clients need nothing of Django
    processes = min(options.processes, options.tables)
    shares = [options.tables // processes + (1 if i < options.tables % processes else 0) for i in range(processes)]
    ready, go, results = context.Queue(), context.Queue(), context.Queue()
    workers = [
        context.Process(target=client_process, args=(i, options, shares[i], ready, go, results), daemon=True)
        for i in range(processes)
    ]
    write(
        f"loadtest: {options.tables} tables of {options.seats} ({options.tables * options.seats} players) "
        f"against {options.base}, one action per table every {options.pace:g} s, "
        f"{options.warmup:g} s warm-up + {options.duration:g} s measured, {processes} client processes"
    )
    setup_started = time.monotonic()
    for w in workers:
        w.start()
    try:
        for _ in workers:
            try:
                _, problem = ready.get(timeout=60 + 2.0 * options.tables * options.seats)
            except queue.Empty:
                raise LoadFailed("the client processes did not get ready (setup too slow?)") from None
            if problem:
                raise LoadFailed(f"setup failed: {problem}")
        write(f"setup: {time.monotonic() - setup_started:.1f} s (sign-ins, tables, sockets)")
        start_at = time.time() + 0.5
        for _ in workers:
            go.put(start_at)
        # The server processes' CPU time (when they run on this machine) and the machine's
        # load over the measured window: on a shared machine the latency alone misleads.
        time.sleep(max(0.0, start_at + options.warmup - time.time()))
        cpu_before, load_before = {pid: cpu_seconds(pid) for pid in options.pids}, load_average()
        time.sleep(max(0.0, start_at + options.warmup + options.duration - time.time()))
        cpu = {pid: round(cpu_seconds(pid) - cpu_before[pid], 2) for pid in options.pids}
        load = (load_before, load_average())
        collected = {}
        wait = options.warmup + options.duration + 3 * options.timeout + 60
        for _ in workers:
            try:
                index, result = results.get(timeout=wait)
            except queue.Empty:
                raise LoadFailed("a client process never reported") from None
            if "error" in result:
                raise LoadFailed(f"client {index} failed: {result['error']}")
            collected[index] = result
    finally:
        for w in workers:
            w.join(5)
            if w.is_alive():
                w.kill()
    result = merge(list(collected.values()), options)
    result["server_cpu_s"] = cpu
    result["load_average"] = load
    return result


def cpu_seconds(pid: int) -> float:
    """User+system CPU seconds of a process and its waited-for children (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def load_average() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def merge(parts: list[dict], options: Options) -> dict:
    latencies = [x for p in parts for x in p["latencies_ms"]]
    seen, unconfirmed = {}, {}
    for p in parts:
        for g, moves in p["seen"].items():
            seen.setdefault(g, {}).update(moves)
        for g, moves in p["unconfirmed"].items():
            unconfirmed.setdefault(g, []).extend(moves)
    counts = {k: sum(p[k] for p in parts) for k in ("refused", "timeouts", "closed", "stuck", "http_errors", "late")}
    return {
        "options": {
            "url": options.base,
            "tables": options.tables,
            "seats": options.seats,
            "players": options.tables * options.seats,
            "pace_s": options.pace,
            "duration_s": options.duration,
            "processes": len(parts),
        },
        "actions": sum(p["actions"] for p in parts),
        "measured": len(latencies),
        "actions_per_s": len(latencies) / options.duration,
        "latency_ms": latency_summary(latencies),
        "slowest": sorted((t for p in parts for t in p.get("slowest", ())), key=lambda t: -t[1])[:SLOWEST],
        "errors": counts,
        "deals": sum(p["deals"] for p in parts),
        "client_cpu_s": sum(p["client_cpu_s"] for p in parts),
        "seen": seen,
        "unconfirmed": unconfirmed,
        "games": sorted({g for p in parts for g in p["games"]}),
    }


def pct(ordered: list, q: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def latency_summary(values: list) -> dict:
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50": round(pct(ordered, 50), 1),
        "p95": round(pct(ordered, 95), 1),
        "p99": round(pct(ordered, 99), 1),
        "max": round(ordered[-1], 1) if ordered else float("nan"),
        "mean": round(statistics.fmean(ordered), 1) if ordered else float("nan"),
    }


# ------------------------------------------------------------------ the move-log check (Django)


def check_logs(seen: dict, unconfirmed: dict) -> dict:
    """Compare what the clients saw accepted with every played game's move log.

    missing: a move a client saw accepted that the log lacks (or has at another
    number, or with another action); extra: a logged move no client sent (a
    double, or foreign); a sent move that never came back (timeout) may be in
    the log once: it is `late`, not extra. The server's own moves (a turn timer
    that ran out, the autopilot, a bot: `Move.source` other than a player's) were
    sent by no client and are counted apart (`server_moves`), never as extra; one
    that took a number a client saw accepted is still missing. Also every log must
    number its moves 0..n-1 and match the game's move count."""
    from games.models import Game, Move

    missing = extra = late = gaps = server_moves = 0
    game_ids = [int(g) for g in seen]
    counts = dict(Game.objects.filter(pk__in=game_ids).values_list("pk", "move_count"))
    logged: dict[int, dict] = {}
    by_server: dict[int, set] = {}
    for game_id, number, seat, action, source in Move.objects.filter(game_id__in=game_ids).values_list(
        "game_id", "number", "seat", "action", "source"
    ):
        logged.setdefault(game_id, {})[number] = (seat, action)
        if source != Move.Source.PLAYER:
            by_server.setdefault(game_id, set()).add(number)
    for game_key, moves in seen.items():
        game_id = int(game_key)
        log = logged.get(game_id, {})
        if sorted(log) != list(range(len(log))) or counts.get(game_id) != len(log):
            gaps += 1
        pending = [list(x) for x in unconfirmed.get(game_key, [])]
        for number_key, (seat, action) in moves.items():
            if log.get(int(number_key)) != (int(seat), action):
                missing += 1
        seen_numbers = {int(n) for n in moves}
        server = by_server.get(game_id, set())
        server_moves += len(server)
        for number, entry in log.items():
            if number in seen_numbers or number in server:
                continue
            if list(entry) in pending:
                pending.remove(list(entry))
                late += 1
            else:
                extra += 1
    return {
        "games": len(seen),
        "missing": missing,
        "extra": extra,
        "late": late,
        "bad_logs": gaps,
        "server_moves": server_moves,
    }


def report(result: dict, check: dict | None) -> str:
    o, lat, err = result["options"], result["latency_ms"], result["errors"]
    lost = (check["missing"] + check["extra"] + check["bad_logs"]) if check else -1
    lines = [
        f"players {o['players']} ({o['tables']} tables of {o['seats']}), pace {o['pace_s']:g} s, "
        f"measured {o['duration_s']:g} s",
        f"actions: {result['measured']} measured ({result['actions']} in all, {result['deals']} new deals), "
        f"{result['actions_per_s']:.1f} actions/s",
        f"latency action -> every seat updated (ms): p50 {lat['p50']} p95 {lat['p95']} p99 {lat['p99']} "
        f"max {lat['max']} mean {lat['mean']}",
        "errors: "
        + ", ".join(f"{k} {v}" for k, v in err.items() if k != "late")
        + f"; late actions (started > pace/2 after due) {err['late']}",
        f"client CPU {result['client_cpu_s']:.1f} s; machine load average {result['load_average'][0]:.1f} "
        f"-> {result['load_average'][1]:.1f} ({os.cpu_count()} cores)",
    ]
    slowest = result.get("slowest") or []
    if slowest:
        lines.append(
            "slowest actions (UTC time sent, ms, table): "
            + ", ".join(
                f"{time.strftime('%H:%M:%S', time.gmtime(wall))}.{int(wall % 1 * 1000):03d} {ms:g} t{table}"
                for wall, ms, table in slowest[:5]
            )
        )
    cpu = result.get("server_cpu_s") or {}
    if cpu:
        total = sum(cpu.values())
        per_action = total / max(1, result["measured"]) * 1000
        lines.append(
            f"server CPU in the measured window: {total:.1f} s ({', '.join(f'{p}: {c}' for p, c in cpu.items())}), "
            f"{per_action:.2f} ms per action, {total / o['duration_s'] * 100:.0f} % of one core"
        )
    if check:
        lines.append(
            f"move logs: {check['games']} games checked, missing {check['missing']}, extra {check['extra']}, "
            f"bad logs {check['bad_logs']}, sent-unconfirmed-but-logged {check['late']}, "
            f"the server's own moves (timer, autopilot, bots) {check.get('server_moves', 0)}"
        )
    else:
        lines.append("move logs: not checked")
    lines.append(f"actions_per_s={result['actions_per_s']:.1f} p99_ms={lat['p99']} lost={lost}")
    return "\n".join(lines)


def rerun_check(database_url: str, payload: dict) -> dict:
    """Run `check_logs` in a child with DATABASE_URL=database_url (Django reads settings once)."""
    import subprocess
    import tempfile

    from django.conf import settings

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(payload, f)
        path = f.name
    try:
        env = dict(os.environ, DATABASE_URL=database_url, **{CHILD: path})
        env.setdefault("DEBUG", "true")  # a check needs no SECRET_KEY of the site's
        env["CELERY_EMBEDDED"] = "false"
        out = subprocess.run(
            [sys.executable, str(settings.BASE_DIR / "manage.py"), "loadtest", "--check-only", path],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if out.returncode:
            raise LoadFailed(f"the move-log check failed: {out.stderr.strip()[-2000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        os.unlink(path)
