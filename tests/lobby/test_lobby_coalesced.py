"""Issue 16, item 6: "200 lobby sockets toggling cost the web process 10.5 s of CPU in 15 s".

Each lobby socket used to read the lobby and render the whole list on every change.
Now the process's lobby sockets are refreshed together, at most once per
LOBBY_REFRESH_SECONDS, with one read and one render per kind of viewer (visitors of
one language, signed-in people who sit nowhere, each seated person): a burst of
changes costs a few renders whatever the number of sockets, and every socket still
ends with the whole list, its own CSRF token and its own profile link.
"""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from durak_site.asgi import application
from games import engine
from games.lobby import consumers, rendering
from games.services import tables as table_services
from tests.support import games as support_games
from tests.support.sockets import FRAME_TIMEOUT, ORIGIN, host_of, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

VISITORS_RU, VISITORS_EN, MEMBERS, CHANGES = 20, 10, 10, 8


async def lobby_socket(cookies: str = "", client: int = 0):
    headers = [ORIGIN, host_of(ORIGIN)] + ([(b"cookie", cookies.encode())] if cookies else [])
    socket = WebsocketCommunicator(application, "/ws/lobby/", headers=headers)
    socket.scope["client"] = [f"10.1.{client // 250}.{client % 250 + 1}", 1]
    accepted, _ = await socket.connect(timeout=FRAME_TIMEOUT)
    assert accepted
    first = await socket.receive_from(timeout=FRAME_TIMEOUT)
    assert 'id="lobby-tables"' in first
    return socket


@database_sync_to_async
def open_tables(host, count: int) -> list[int]:
    return [table_services.do_create_table(rules=engine.Rules(players=2), host=host).pk for _ in range(count)]


async def last_frame(socket, wanted: str) -> str:
    """Frames until one shows `wanted`."""
    while True:
        frame = await socket.receive_from(timeout=FRAME_TIMEOUT)
        if wanted in frame:
            return frame


async def test_a_burst_of_changes_costs_a_few_renders_for_all_sockets(settings, monkeypatch):
    settings.LOBBY_REFRESH_SECONDS = 0.5
    settings.MAX_WAITING_TABLES = CHANGES
    renders = {"n": 0}
    real = rendering.render_tables

    def counted(*args, **kwargs):
        renders["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(rendering, "render_tables", counted)
    host = await database_sync_to_async(support_games.make_user)("host")
    members = [await database_sync_to_async(support_games.make_user)(f"member{i}") for i in range(MEMBERS)]
    sockets = [await lobby_socket(client=i) for i in range(VISITORS_RU)]
    sockets += [await lobby_socket("django_language=en", client=100 + i) for i in range(VISITORS_EN)]
    member_sockets = []
    for i, member in enumerate(members):
        cookie = await session_cookie(member)
        member_sockets.append(await lobby_socket(f"sessionid={cookie}; csrftoken=token{i}x", client=200 + i))
    host_socket = await lobby_socket(f"sessionid={await session_cookie(host)}", client=300)
    hub = consumers.hub()
    refreshes_before = hub.refreshes
    try:
        opened = await open_tables(host, CHANGES)
        wanted = f'id="lobby-table-{opened[-1]}"'
        frames = [await last_frame(s, wanted) for s in [*sockets, *member_sockets, host_socket]]
        await asyncio.sleep(1.2)  # whatever refresh was still due has run
        refreshes = hub.refreshes - refreshes_before
        # 41 sockets, 8 changes: 328 renders before; now four kinds of viewer per refresh.
        assert 1 <= refreshes <= 3
        assert renders["n"] <= 4 * refreshes
        assert all(f'id="lobby-table-{pk}"' in frame for frame in frames for pk in opened)
        assert "Открытые столы" in frames[0] and "Open tables" in frames[VISITORS_RU]
        for i, frame in enumerate(frames[VISITORS_RU + VISITORS_EN : -1]):
            assert f'value="token{i}x"' in frame and rendering.CSRF_SLOT not in frame
            assert f'href="/players/member{i}/"' in frame and frame.count('href="/players/member') == 1
            assert "Сесть сюда" in frame  # members may sit down
        assert "Сесть сюда" not in frames[0]  # visitors may not
        assert "Ваши столы" in frames[-1]  # the host's own tables: his own render
    finally:
        for socket in [*sockets, *member_sockets, host_socket]:
            await socket.disconnect()


async def test_a_socket_whose_list_did_not_change_is_sent_nothing(settings):
    settings.LOBBY_REFRESH_SECONDS = 0.1
    host = await database_sync_to_async(support_games.make_user)("host")
    socket = await lobby_socket()
    try:
        await database_sync_to_async(table_services.do_create_table)(
            rules=engine.Rules(players=2), host=host, is_private=True
        )
        assert await socket.receive_nothing(timeout=0.5)
    finally:
        await socket.disconnect()
