"""Round trips through the services the site uses in production.

They skip on a bare machine without PostgreSQL or Redis, and fail under CI.
"""

from __future__ import annotations

import psycopg
from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer

from durak_site.celery import app as celery_app


async def channel_round_trip(layer) -> None:
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "game.move", "card": "6♠"})
    assert await layer.receive(channel) == {"type": "game.move", "card": "6♠"}


async def test_in_memory_channel_layer_round_trip():
    await channel_round_trip(InMemoryChannelLayer())


async def test_redis_channel_layer_round_trip(redis_url):
    layer = RedisChannelLayer(hosts=[redis_url], prefix="durak-test")
    try:
        await channel_round_trip(layer)
    finally:
        await layer.flush()


def test_postgres_answers(postgres_url):
    with psycopg.connect(postgres_url, connect_timeout=5) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_celery_app_is_configured_from_django_settings():
    assert celery_app.main == "durak_site"
    assert celery_app.conf.task_acks_late is True
    assert celery_app.conf.task_default_queue == "default"
    assert celery_app.conf.broker_url
