"""The outside services the production site needs answer: PostgreSQL, and Redis as a channel layer.

They skip on a bare machine without PostgreSQL or Redis, and fail under CI
(tests/scaleout plays whole games on them).
"""

from __future__ import annotations

import psycopg
from channels_redis.core import RedisChannelLayer


async def channel_round_trip(layer) -> None:
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "game.move", "card": "6♠"})
    assert await layer.receive(channel) == {"type": "game.move", "card": "6♠"}


async def test_redis_channel_layer_round_trip(redis_url):
    layer = RedisChannelLayer(hosts=[redis_url], prefix="durak-test")
    try:
        await channel_round_trip(layer)
    finally:
        await layer.flush()


def test_postgres_answers(postgres_url):
    with psycopg.connect(postgres_url, connect_timeout=5) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
