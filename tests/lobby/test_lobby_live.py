"""The lobby's websocket, over the real ASGI application."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from durak_site.asgi import application
from games import engine
from games.services import tables as table_services
from tests.support import games as support_games
from tests.support import sockets

pytestmark = pytest.mark.django_db(transaction=True)

make_user = database_sync_to_async(support_games.make_user)


@database_sync_to_async
def open_table(host, **options):
    return table_services.do_create_table(rules=engine.Rules(players=3), host=host, **options)


@database_sync_to_async
def join(table, user):
    return table_services.do_join_table(table_id=table.pk, user=user)


async def connect(headers=()):
    communicator, accepted = await sockets.connect(
        "/ws/lobby/", origin=(b"origin", b"http://localhost"), headers=headers
    )
    assert accepted
    return communicator


async def test_lobby_socket_gets_the_list_and_every_change():
    host = await make_user("host")
    guest = await make_user("guest")
    communicator = await connect()
    try:
        first = await communicator.receive_from(timeout=10)
        assert 'id="lobby-tables"' in first and 'hx-swap-oob="true"' in first
        assert "Открытые столы" in first  # Russian by default

        table = await open_table(host)
        frame = await communicator.receive_from(timeout=10)
        assert f'id="lobby-table-{table.pk}"' in frame
        assert "host" in frame

        await join(table, guest)
        frame = await communicator.receive_from(timeout=10)
        assert "guest" in frame.split(f'id="lobby-table-{table.pk}"')[1]

        # A private table is not listed: the list does not change, and nothing is sent
        # (issue 16: a socket whose list did not change is sent nothing).
        private = await open_table(host, is_private=True)
        assert await communicator.receive_nothing(timeout=1.5)
        public = await open_table(guest)
        frame = await communicator.receive_from(timeout=10)
        assert f'id="lobby-table-{public.pk}"' in frame and f'id="lobby-table-{private.pk}"' not in frame
    finally:
        await communicator.disconnect()


async def test_lobby_socket_speaks_the_page_language():
    communicator = await connect(headers=[(b"cookie", b"django_language=en")])
    try:
        frame = await communicator.receive_from(timeout=10)
        assert "Open tables" in frame
    finally:
        await communicator.disconnect()


async def test_lobby_socket_refuses_a_foreign_origin():
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await communicator.connect()
    assert not connected
