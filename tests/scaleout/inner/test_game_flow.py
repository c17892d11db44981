"""The production processes: PostgreSQL, Redis, and `celery worker` + `celery beat`.

Runs only in the scale-out subprocess (REDIS_URL and DATABASE_URL set, see
tests/scaleout/test_postgres_redis.py). Two signed-in users play a whole game
with a bot over the real ASGI application (WebsocketCommunicator, channels_redis
layer); the bot's moves are made by a real `celery -A durak_site worker`
process consuming the variant's queue, whose group messages reach the
consumers in this process through Redis. Nothing here calls advance itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connection
from django.test import Client

from durak_site.asgi import application
from games import bots, engine, positions
from games.models import Game, Move
from games.services import notify, tables
from tests.support.games import latest_game, make_user

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def scaled_out():
    """These tests run only through tests/scaleout/runner.py, which sets REDIS_URL."""
    assert settings.REDIS_URL, "run through tests/scaleout/runner.py: REDIS_URL must be set"


ROOT = Path(__file__).resolve().parents[3]
ORIGIN = (b"origin", b"http://127.0.0.1:8000")
HOST = (b"host", b"127.0.0.1:8000")  # the websocket Origin check compares it with ORIGIN
MOVES_RE = re.compile(r'data-moves="(\d+)"')


@pytest.fixture
def celery_processes(tmp_path):
    """`celery worker` (the Procfile's queues) and `celery beat`, on this test database."""
    db = connection.settings_dict
    assert db["ENGINE"].endswith("postgresql"), "the scale-out run uses PostgreSQL"
    env = dict(os.environ)
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env.pop("PYTEST_CURRENT_TEST", None)
    logs = {name: tmp_path / f"{name}.log" for name in ("worker", "beat")}
    commands = {
        "worker": [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "durak_site",
            "worker",
            "-Q",
            ",".join(settings.WORKER_QUEUES),
            "-l",
            "info",
            "--concurrency",
            "2",
            "--without-mingle",
            "--without-gossip",
            "-n",
            f"scaleout-{os.getpid()}@%h",
        ],
        "beat": [sys.executable, "-m", "celery", "-A", "durak_site", "beat", "-l", "info"],
    }
    processes = {}
    try:
        for name, command in commands.items():
            processes[name] = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=logs[name].open("w"), stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 30
        while "ready." not in logs["worker"].read_text():
            assert processes["worker"].poll() is None, logs["worker"].read_text()
            assert time.monotonic() < deadline, "the worker did not start:\n" + logs["worker"].read_text()
            time.sleep(0.2)
        yield logs
    finally:
        for process in processes.values():
            process.terminate()
        for process in processes.values():
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@database_sync_to_async
def setup_table():
    alice, bob = make_user("alice"), make_user("bob")
    cookies = []
    for user in (alice, bob):
        client = Client()
        client.force_login(user)
        cookies.append(client.cookies["sessionid"].value)
    rules = engine.Rules(variant="perevodnoy", players=3)
    table = tables.do_create_table(
        rules=rules, host=alice, seat_users=[alice, bob], bot_seats={2: "medium"}, start=True
    )
    return table.pk, latest_game(table).pk, {0: cookies[0], 1: cookies[1]}


@database_sync_to_async
def game_state(game_id):
    game = Game.objects.get(pk=game_id)
    return game, positions.position_of(game)


@database_sync_to_async
def move_sources(game_id):
    return list(Move.objects.filter(game_id=game_id).values_list("source", flat=True))


async def drain(communicator) -> list[str]:
    frames = []
    while not await communicator.receive_nothing(timeout=0.05):
        frames.append(await communicator.receive_from())
    return frames


async def test_two_users_and_a_celery_worker_bot_play_a_whole_game(celery_processes):
    assert "RedisChannelLayer" in settings.CHANNEL_LAYERS["default"]["BACKEND"]
    table_id, game_id, cookies = await setup_table()
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(notify.table_group(table_id), listener)
    sockets = {}
    for seat, cookie in cookies.items():
        communicator = WebsocketCommunicator(
            application, f"/ws/table/{table_id}/", headers=[ORIGIN, HOST, (b"cookie", f"sessionid={cookie}".encode())]
        )
        connected, _ = await communicator.connect()
        assert connected
        assert MOVES_RE.search(await communicator.receive_from(timeout=5))  # the full state at once
        sockets[seat] = communicator
    seen = dict.fromkeys(sockets, 0)
    try:
        stalled_since = time.monotonic()
        last_count = -1
        while True:
            game, position = await game_state(game_id)
            for seat, communicator in sockets.items():
                for frame in await drain(communicator):
                    found = MOVES_RE.findall(frame)
                    if found:
                        seen[seat] = max(seen[seat], *map(int, found))
            if game.is_over:
                break
            if game.move_count != last_count:
                last_count, stalled_since = game.move_count, time.monotonic()
            assert time.monotonic() - stalled_since < 20, f"nothing moved for 20 s at move {game.move_count}"
            humans = [s for s in position.to_move() if s in sockets]
            if humans:
                seat = humans[0]
                action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
                await sockets[seat].send_to(text_data=json.dumps({"action": action, "seat": str(seat)}))
                await asyncio.sleep(0.02)
            else:
                await asyncio.sleep(0.05)  # the bot's turn: the Celery worker process makes it
        # Every seat's socket ends up showing the final position.
        deadline = time.monotonic() + 10
        while min(seen.values()) < game.move_count and time.monotonic() < deadline:
            for seat, communicator in sockets.items():
                for frame in await drain(communicator):
                    seen[seat] = max([seen[seat], *map(int, MOVES_RE.findall(frame))])
        assert seen == dict.fromkeys(sockets, game.move_count)
    finally:
        for communicator in sockets.values():
            await communicator.disconnect()
    sources = await move_sources(game_id)
    assert Move.Source.PLAYER in sources and Move.Source.BOT in sources
    assert game.status == Game.Status.FINISHED and game.result is not None
    # The group messages went through Redis, also those sent by the worker process.
    message = await asyncio.wait_for(layer.receive(listener), timeout=5)
    assert message["type"] == "table.changed"
    await layer.group_discard(notify.table_group(table_id), listener)
    worker_log = celery_processes["worker"].read_text()
    assert "games.tasks.advance_game" in worker_log and "succeeded" in worker_log, worker_log[-3000:]
    assert "perevodnoy" in worker_log  # it consumes the variant's queue


IDLE_SECONDS = 30


@database_sync_to_async
def setup_two_player_table():
    alice, bob = make_user("idle-alice"), make_user("idle-bob")
    cookies = {}
    for seat, user in enumerate((alice, bob)):
        client = Client()
        client.force_login(user)
        cookies[seat] = client.cookies["sessionid"].value
    table = tables.do_create_table(
        rules=engine.Rules(variant="podkidnoy", players=2), host=alice, seat_users=[alice, bob], start=True
    )
    return table.pk, latest_game(table).pk, cookies


async def test_an_idle_socket_stays_open_and_gets_the_next_move():
    """Issue 7, item 8: channels_redis pops with a 5 s timeout; with redis-py's default
    5 s socket timeout every socket that heard nothing for 5 s was closed with 1011."""
    table_id, game_id, cookies = await setup_two_player_table()
    sockets = {}
    try:
        for seat, cookie in cookies.items():
            communicator = WebsocketCommunicator(
                application,
                f"/ws/table/{table_id}/",
                headers=[ORIGIN, HOST, (b"cookie", f"sessionid={cookie}".encode())],
            )
            connected, _ = await communicator.connect()
            assert connected
            assert MOVES_RE.search(await communicator.receive_from(timeout=5))
            sockets[seat] = communicator
        await asyncio.sleep(IDLE_SECONDS)  # nobody moves, no group message for anyone
        for communicator in sockets.values():
            await drain(communicator)  # raises if the socket's consumer died
            assert not communicator.future.done(), "the idle socket was closed"
        game, position = await game_state(game_id)
        assert game.move_count == 0
        seat = position.to_move()[0]
        action = bots.get_bot("heuristic", seed=1).choose(position.view(seat))
        await sockets[seat].send_to(text_data=json.dumps({"action": action, "seat": str(seat)}))
        for other, communicator in sockets.items():
            shown = 0
            deadline = time.monotonic() + 10
            while shown < 1 and time.monotonic() < deadline:
                frame = await communicator.receive_from(timeout=10)
                shown = max([shown, *map(int, MOVES_RE.findall(frame))])
            assert shown == 1, f"seat {other} did not see the move"
    finally:
        for communicator in sockets.values():
            await communicator.disconnect()
