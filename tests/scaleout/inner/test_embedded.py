"""The one-command mode: a Celery worker and beat in threads of this process.

Nobody calls advance here: the deal's nudge (to the variant's queue) and the
beat's 1-second sweep (default queue) drive a table of bots, and every move
reaches the table's channel-layer group, handed over to this test's event
loop as it is to daphne's in `python3 dev.py serve`.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from durak_site import embedded
from games import engine
from games.models import Game, Move
from games.services import notify, tables
from tests.support.games import latest_game

pytestmark = pytest.mark.django_db(transaction=True)


def bot_table(variant: str):
    rules = engine.Rules(variant=variant, players=2)
    table = tables.do_create_table(rules=rules, bot_seats={0: "medium", 1: "easy"}, start=True)
    return table.pk, latest_game(table).pk


def move_log(game_id):
    return list(Move.objects.filter(game_id=game_id).values_list("seat", "source"))


async def test_embedded_worker_and_beat_play_a_bot_table_by_themselves():
    assert not settings.CELERY_EMBEDDED  # pytest never starts it by itself
    embedded.remember_site_loop()
    layer = get_channel_layer()
    table_id, game_id = await database_sync_to_async(bot_table)("perevodnoy")
    channel = await layer.new_channel()
    await layer.group_add(notify.table_group(table_id), channel)
    runner = await sync_to_async(embedded.start_embedded_celery)()
    try:
        assert runner is embedded.running()
        assert runner.worker_thread.is_alive() and runner.beat.is_alive()
        assert runner.worker_thread.name == embedded.WORKER_THREAD_NAME
        started = time.monotonic()
        message = await asyncio.wait_for(layer.receive(channel), timeout=15)
        if message["snapshot"]["game"]["move_count"] == 0:
            # The deal's own notice may still be on its way (it is queued on the loop
            # without waiting); the first bot move follows it.
            message = await asyncio.wait_for(layer.receive(channel), timeout=15)
        first_move_after = time.monotonic() - started
        assert message["type"] == "table.changed"
        assert message["snapshot"]["game"]["id"] == game_id
        assert message["snapshot"]["game"]["move_count"] >= 1
        assert message["events"]
        # More moves follow, each after a bot's pause.
        for _ in range(3):
            message = await asyncio.wait_for(layer.receive(channel), timeout=15)
        assert message["snapshot"]["game"]["move_count"] >= 4
    finally:
        await sync_to_async(runner.stop)()
    assert embedded.running() is None
    assert not runner.worker_thread.is_alive()
    log = await database_sync_to_async(move_log)(game_id)
    assert len(log) >= 4 and {source for _, source in log} == {Move.Source.BOT}
    assert first_move_after < 8
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.move_count == len(log)
