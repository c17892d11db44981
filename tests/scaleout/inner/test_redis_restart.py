"""Issue 7, item 9: Redis restarts mid-game; the production processes carry on.

Runs only in the subprocess of tests/scaleout/test_redis_restart.py, whose
REDIS_URL is a private redis-server that this test shuts down and starts
again on the same port. The processes run under supervisord with the shipped
deploy/supervisord.conf (its socket and pid file moved to a temporary folder),
so a worker that dies on the restart comes back, as in production.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from celery import current_app
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.test import Client

from durak_site.asgi import application
from games import engine
from games.models import Game, Move
from games.services import tables
from tests.support.games import latest_game, make_user

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[3]
REDIS_PORT = int(os.environ.get("DURAK_PRIVATE_REDIS_PORT", "0"))
ORIGIN = (b"origin", b"http://127.0.0.1:8000")
HOST = (b"host", b"127.0.0.1:8000")  # the websocket Origin check compares it with ORIGIN
MOVES_RE = re.compile(r'data-moves="(\d+)"')
TURN_SECONDS = 15
BACK_WITHIN = 30  # seconds after Redis is back


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def supervised(tmp_path):
    """supervisord with deploy/supervisord.conf: web, worker, ratings workers, beat."""
    db = connection.settings_dict
    conf = (ROOT / "deploy" / "supervisord.conf").read_text()
    conf = (
        conf.replace("/tmp/durak-supervisor.sock", str(tmp_path / "supervisor.sock"))
        .replace("/tmp/durak-supervisord.pid", str(tmp_path / "supervisord.pid"))
        .replace("%(here)s/..", str(ROOT))
    )
    conf_path = tmp_path / "supervisord.conf"
    conf_path.write_text(conf)
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PORT"] = str(free_port())
    log = tmp_path / "supervisord.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "supervisor.supervisord", "-c", str(conf_path)],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while log.read_text(errors="replace").count(" ready.") < 3 or "beat: Starting" not in log.read_text(
            errors="replace"
        ):
            assert process.poll() is None, log.read_text(errors="replace")[-4000:]
            assert time.monotonic() < deadline, "the processes did not start:\n" + log.read_text()[-4000:]
            time.sleep(0.5)
        yield log
    finally:
        process.terminate()  # supervisord stops its programs, then exits
        try:
            process.wait(90)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def restart_redis():
    """Shut the private Redis down and start it again on the same port after `down` seconds."""
    started = []

    def restart(down: float = 2.0) -> None:
        try:
            redis.Redis(port=REDIS_PORT).shutdown(nosave=True)
        except redis.exceptions.ConnectionError:
            pass  # shutting down closes the connection
        time.sleep(down)
        started.append(
            subprocess.Popen(
                ["redis-server", "--bind", "127.0.0.1", "--port", str(REDIS_PORT), "--save", "", "--appendonly", "no"],
                stdout=subprocess.DEVNULL,
            )
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis(port=REDIS_PORT).ping()
                return
            except redis.exceptions.ConnectionError:
                assert time.monotonic() < deadline, "Redis did not come back"
                time.sleep(0.1)

    yield restart
    for process in started:
        process.terminate()
        process.wait(10)


@database_sync_to_async
def setup_table():
    alice = make_user("restart-alice")
    client = Client()
    client.force_login(alice)
    table = tables.do_create_table(
        rules=engine.Rules(variant="podkidnoy", players=2),
        host=alice,
        turn_seconds=TURN_SECONDS,
        seat_users=[alice, None],
        bot_seats={1: "medium"},
        start=True,
    )
    return table.pk, latest_game(table).pk, client.cookies["sessionid"].value


@database_sync_to_async
def game_and_moves(game_id):
    game = Game.objects.get(pk=game_id)
    return game, list(Move.objects.filter(game_id=game_id).order_by("number").values_list("number", "seat", "source"))


async def open_socket(table_id, cookie):
    communicator = WebsocketCommunicator(
        application, f"/ws/table/{table_id}/", headers=[ORIGIN, HOST, (b"cookie", f"sessionid={cookie}".encode())]
    )
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


def moves_shown(frames: list[str]) -> int:
    return max([-1, *(int(n) for frame in frames for n in MOVES_RE.findall(frame))])


async def frames_until(communicator, moves: int, timeout: float = 10) -> int:
    """Read the socket until it shows `moves` moves (or the time is up); the moves it showed."""
    shown = -1
    deadline = time.monotonic() + timeout
    while shown < moves and time.monotonic() < deadline:
        try:
            shown = max(shown, moves_shown([await communicator.receive_from(timeout=deadline - time.monotonic())]))
        except TimeoutError:
            break
    return shown


async def reconnect(table_id, cookie, until: float):
    """Like the browser's websocket extension: open sockets until one shows the game.
    Returns the socket and the number of moves its first frame shows."""
    while True:
        try:
            communicator = await open_socket(table_id, cookie)
            shown = moves_shown([await communicator.receive_from(timeout=5)])
            if shown >= 0:
                return communicator, shown
        except Exception:  # the socket closed (1011) before showing anything: try again
            pass
        assert time.monotonic() < until, "no socket shows the game after the restart"
        await asyncio.sleep(1)


async def test_redis_restart_mid_game_with_a_bot_and_a_timer(supervised, restart_redis):
    table_id, game_id, cookie = await setup_table()
    old_socket = await open_socket(table_id, cookie)
    # Alice never moves: her turn timer moves for her, the bot answers.
    deadline = time.monotonic() + 30
    while True:
        game, moves = await game_and_moves(game_id)
        if game.deadline is not None:
            break  # Alice's turn, her timer running
        assert time.monotonic() < deadline, f"no turn for Alice: {moves}"
        await asyncio.sleep(0.2)
    before = len(moves)
    # A message the worker holds unacknowledged until its time (as it holds a bot's
    # pause): on a Redis restart kombu fails to restore it and the worker exits.
    current_app.send_task("games.tasks.sweep_due_games", countdown=120, queue="default")
    await asyncio.sleep(1)
    await asyncio.to_thread(restart_redis)
    back_at = time.monotonic()

    # Sockets are back: the browser reconnects until a socket shows the game.
    communicator, first_shown = await reconnect(table_id, cookie, until=back_at + BACK_WITHIN)
    try:
        # The timer fires (beat's sweep, after a possible worker restart) and the bot moves.
        while True:
            game, moves = await game_and_moves(game_id)
            after = moves[before:]
            timeouts = [m for m in after if m[2] == Move.Source.TIMEOUT]
            bot_moves = [m for m in after if m[2] == Move.Source.BOT and timeouts and m[0] > timeouts[0][0]]
            if bot_moves or game.is_over:
                break
            assert time.monotonic() - back_at < BACK_WITHIN + TURN_SECONDS, (
                f"after the restart: moves {after}\n" + supervised.read_text(errors="replace")[-6000:]
            )
            await asyncio.sleep(0.2)
        assert after[0][1:] == (0, Move.Source.TIMEOUT), after
        assert len(timeouts) == 1, f"the timer fired {len(timeouts)} times: {after}"
        # No move lost or doubled: numbers 0..move_count-1, each once.
        assert [m[0] for m in moves] == list(range(game.move_count)), moves
        # The new socket shows the moves made since.
        seen = first_shown if first_shown >= before + 2 else await frames_until(communicator, before + 2)
        assert seen >= before + 2, (
            f"the new socket saw up to move {seen}, the game is at {game.move_count}\n"
            + supervised.read_text(errors="replace")[-8000:]
        )
        # The socket opened before the restart was closed (the browser reconnects), not
        # left open and deaf: the restarted Redis has forgotten its group.
        assert old_socket.future.done(), "a socket from before the restart is open but hears nothing"
    finally:
        await communicator.disconnect()
