"""The framework floor: what a live table costs here with no game logic at all.

`bench_tables` serves this application from a second daphne beside the site's and
drives both with the same client, so the site's figures can be read as a share of
what Channels, daphne and SQLite cost on the same machine in the same minutes.

A table is the websocket group of `ws/floor/<table_id>/`. A frame `{"action": ...}`
from any of its sockets costs ONE SQLite transaction through `database_sync_to_async`
(the table's row of a counter table, `moves = moves + 1`) and one `group_send` to the
table's group; each socket of the group then sends its browser a frame shaped like
the site's, so the same client reads both:

    <section id="table-state" data-game="<table_id>" data-moves="<moves>" hx-swap-oob="true"><p>...</p></section>

padded to `DURAK_FLOOR_FRAME_BYTES` bytes (default `DEFAULT_FRAME_BYTES`, about the
site's own state frames; 0: the bare section, as the small frames of
docs/benchmarks.md's first floor). On connect a socket gets the table's current frame.

Kept honest: the settings are the site's (`durak_site.settings`: SQLite in WAL mode
with persistent connections and BEGIN IMMEDIATE, the channel layer it uses, DEBUG
as given), the consumer is Channels' own AsyncWebsocketConsumer as shipped, and
daphne is the same. What it leaves out is the site's work: no session or auth
middleware, no origin check, no engine, no move log, no per-seat rendering, no
`#table-error` answer to the acting socket, no embedded Celery.

The counter table is made with raw SQL (`CREATE TABLE IF NOT EXISTS`, on every
connect, outside any timing): no model, no migration.
"""

from __future__ import annotations

import json
import os

import django
from django.apps import apps

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
if not apps.ready:
    django.setup(set_prefix=False)

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import ProtocolTypeRouter, URLRouter
from django.db import connection, transaction
from django.urls import path

from bench.floor_frames import DEFAULT_FLOOR_FRAME_BYTES as DEFAULT_FRAME_BYTES
from bench.floor_frames import FLOOR_FRAME_BYTES_ENV as FRAME_BYTES_ENV

COUNTER_TABLE = "bench_floor_counter"
GROUP = "floor-{}"


def frame_bytes() -> int:
    try:
        return max(0, int(os.environ.get(FRAME_BYTES_ENV, DEFAULT_FRAME_BYTES)))
    except ValueError:
        return DEFAULT_FRAME_BYTES


def state_frame(table_id: int, moves: int, size: int) -> str:
    """The state frame of a table at `moves`, padded to about `size` bytes (ASCII)."""
    head = f'<section id="table-state" data-game="{table_id}" data-moves="{moves}" hx-swap-oob="true">'
    if size <= 0:
        return head + "</section>"
    tail = "</p></section>"
    return head + "<p>" + "x" * max(0, size - len(head) - len(tail) - 3) + tail


def prepare_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {COUNTER_TABLE} (table_id INTEGER PRIMARY KEY, moves INTEGER NOT NULL)"
        )


def current_moves(table_id: int) -> int:
    prepare_database()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT moves FROM {COUNTER_TABLE} WHERE table_id = %s", [table_id])
        row = cursor.fetchone()
    return row[0] if row else 0


def count_move(table_id: int) -> int:
    """The one transaction of an action: the table's counter, one up; its new value."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {COUNTER_TABLE} (table_id, moves) VALUES (%s, 1) "
            "ON CONFLICT (table_id) DO UPDATE SET moves = moves + 1 RETURNING moves",
            [table_id],
        )
        return cursor.fetchone()[0]


class FloorConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.group = GROUP.format(self.table_id)
        self.size = frame_bytes()
        await self.channel_layer.group_add(self.group, self.channel_name)
        moves = await database_sync_to_async(current_moves)(self.table_id)
        await self.accept()
        await self.send(text_data=state_frame(self.table_id, moves, self.size))

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        try:
            data = json.loads(text_data or "")
        except ValueError:
            return
        if not isinstance(data, dict) or "action" not in data:
            return
        moves = await database_sync_to_async(count_move)(self.table_id)
        await self.channel_layer.group_send(self.group, {"type": "floor.moved", "moves": moves})

    async def floor_moved(self, message):
        await self.send(text_data=state_frame(self.table_id, message["moves"], self.size))


application = ProtocolTypeRouter({"websocket": URLRouter([path("ws/floor/<int:table_id>/", FloorConsumer.as_asgi())])})
