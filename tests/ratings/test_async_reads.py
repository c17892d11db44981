"""Ratings read from async code (a consumer on the event loop): the async variants
await their query on a worker thread, so the loop serves other sockets meanwhile,
and they fill the same cache the template tags read when the consumer renders."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async
from django.template import Context, Template

from ratings import selectors, services
from tests.ratings.helpers import finished_game, people

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

SLOW_READ = 0.3  # seconds a read is made to take


@database_sync_to_async
def rated_players():
    """anna beat boris twice; a rated game of the two not started yet (for the chances)."""
    anna, boris = people("anna", "boris")
    for _ in range(2):
        finished_game([(anna, 1), (boris, 2)])
    services.recompute("podkidnoy")
    upcoming = finished_game([(anna, 1), (boris, 2)])
    return anna.pk, boris.pk, upcoming.pk


async def ticks_while(awaitable):
    """Run `awaitable` beside a coroutine that ticks every 10 ms: (its result, the ticks)."""
    ticks = 0
    running = True

    async def ticker():
        nonlocal ticks
        while running:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.ensure_future(ticker())
    try:
        result = await awaitable
    finally:
        running = False
        await task
    return result, ticks


def slowed(read):
    def slow(*args):
        time.sleep(SLOW_READ)
        return read(*args)

    return slow


async def test_a_rating_cache_miss_in_async_code_leaves_the_event_loop_free(monkeypatch):
    anna, boris, _ = await rated_players()
    expected = await database_sync_to_async(selectors.ratings_for)([anna, boris], "podkidnoy")
    monkeypatch.setattr(selectors, "ratings_for", slowed(selectors.ratings_for))

    shown, ticks = await ticks_while(selectors.acached_ratings_for([anna, boris, None], "podkidnoy"))

    assert shown == expected
    assert all(text.endswith("?") for text in shown.values()) and len(shown) == 2  # two games: both provisional
    # The loop went on while the query took SLOW_READ seconds (a blocking wait would show no tick).
    assert ticks >= SLOW_READ / 0.01 / 3


async def test_the_chances_are_read_the_same_way(monkeypatch):
    anna, boris, upcoming = await rated_players()
    expected = await database_sync_to_async(selectors.game_chance_rows)(upcoming)
    monkeypatch.setattr(selectors, "game_chance_rows", slowed(selectors.game_chance_rows))

    rows, ticks = await ticks_while(selectors.acached_game_chance_rows(upcoming))

    assert rows == expected and [row["user_id"] for row in rows] == [anna, boris]
    assert rows[0]["percent"] < 50 < rows[1]["percent"]  # anna won both games: boris likelier the durak
    assert ticks >= SLOW_READ / 0.01 / 3


async def test_after_the_async_reads_a_render_on_the_loop_reads_nothing(monkeypatch):
    """A consumer awaits the async variants first; the template tags then hit the cache."""
    anna, boris, upcoming = await rated_players()
    shown = await selectors.acached_ratings_for([anna, boris], "podkidnoy")
    rows = await selectors.acached_game_chance_rows(upcoming)

    def no_read(*args):
        raise AssertionError("the render read the database on the event loop")

    monkeypatch.setattr(selectors, "ratings_for", no_read)
    monkeypatch.setattr(selectors, "game_chance_rows", no_read)
    html = Template(
        "{% load ratings %}{% rating_of anna 'podkidnoy' %}|{% rating_of boris 'podkidnoy' %}|"
        "{% game_chances game as chances %}{{ chances|length }}"
    ).render(Context({"anna": anna, "boris": boris, "game": upcoming}))
    assert html == f"{shown[anna]}|{shown[boris]}|{len(rows)}" and len(rows) == 2 and html.count("?") == 2


async def test_before_a_live_table_renders_its_ratings_and_chances_are_fetched(monkeypatch):
    """games.signals.table_will_render (a consumer awaits it before rendering on the
    event loop): the ratings app's receiver fills the cache the template tags read."""
    from games.signals import table_will_render

    anna, boris, upcoming = await rated_players()
    seats = [{"number": 0, "user_id": anna}, {"number": 1, "user_id": boris}]
    snapshot = {
        "table": {"id": 1, "rated": True, "variant": "podkidnoy"},
        "seats": seats,
        "game": {"id": upcoming, "move_count": 0, "status": "playing", "seats": seats},
    }
    await table_will_render.asend(sender=None, snapshot=snapshot)

    def no_read(*args):
        raise AssertionError("the render read the database on the event loop")

    monkeypatch.setattr(selectors, "ratings_for", no_read)
    monkeypatch.setattr(selectors, "game_chance_rows", no_read)
    html = Template(
        "{% load ratings %}{% table_ratings table seats as shown %}{{ shown|length }}|"
        "{% game_chances game as chances %}{{ chances|length }}"
    ).render(Context({"table": snapshot["table"], "seats": seats, "game": upcoming}))
    assert html == "2|2"


async def test_an_unrated_table_fetches_nothing(monkeypatch):
    from games.signals import table_will_render

    def no_read(*args):
        raise AssertionError("an unrated table needs no ratings")

    monkeypatch.setattr(selectors, "ratings_for", no_read)
    snapshot = {"table": {"id": 1, "rated": False, "variant": "podkidnoy"}, "seats": [{"user_id": 5}], "game": None}
    await table_will_render.asend(sender=None, snapshot=snapshot)
