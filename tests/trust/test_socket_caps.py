"""Issue 16, items 6 and 7: caps on open websockets, and handshakes while Redis is away.

"one user opened 300 sockets"; "after a Redis restart a few websocket handshakes fail
with a 500 for several minutes". Every websocket passes durak_site.sockets: past
SOCKETS_PER_USER or SOCKETS_PER_ADDRESS it is told why (in the reader's language)
and closed with 4429; the counts live in the cache (games.limits.SocketLease), renewed
by live sockets, so a dead process's places vanish within two windows. A consumer that
meets a connection error during the handshake is tried again, then closed with 1013
("try again later"), never a 500.
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from durak_site import sockets as guard
from durak_site.asgi import application
from games import engine, limits
from games.services import tables as table_services
from tests.support import games as support_games
from tests.support.sockets import FRAME_TIMEOUT, ORIGIN, cookie_header, host_of, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

make_user = database_sync_to_async(support_games.make_user)
USER_CAP_RU = "Открыто слишком много страниц сайта: закройте лишние и обновите эту."
ADDRESS_CAP_RU = "С вашего адреса слишком много соединений: попробуйте позже."
ADDRESS_CAP_EN = "Too many connections from your address: try again later."


def communicator(path: str, cookie: str | None = None, address: str = "10.0.0.5", language: str | None = None):
    socket = WebsocketCommunicator(
        application, path, headers=[ORIGIN, host_of(ORIGIN), *cookie_header(cookie, language)]
    )
    socket.scope["client"] = [address, 40000]
    return socket


async def opened(path: str, cookie: str | None = None, address: str = "10.0.0.5"):
    socket = communicator(path, cookie, address)
    accepted, _ = await socket.connect(timeout=FRAME_TIMEOUT)
    assert accepted
    if path == "/ws/lobby/":
        assert 'id="lobby-tables"' in await socket.receive_from(timeout=FRAME_TIMEOUT)
    return socket


async def refused_with(socket) -> tuple[str, int]:
    """(the notice's text, the close code) of a socket past a cap."""
    accepted, _ = await socket.connect(timeout=FRAME_TIMEOUT)
    assert accepted  # accepted only to say why
    notice = await socket.receive_output(timeout=FRAME_TIMEOUT)
    closing = await socket.receive_output(timeout=FRAME_TIMEOUT)
    assert closing["type"] == "websocket.close"
    assert 'id="socket-notice" hx-swap-oob="true"' in notice["text"]
    return notice["text"], closing["code"]


async def close_all(open_sockets):
    for socket in open_sockets:
        await socket.disconnect()


async def test_one_user_past_the_cap_is_told_why_and_closed(settings):
    settings.SOCKETS_PER_USER = 3
    user = await make_user("many-tabs")
    cookie = await session_cookie(user)
    # Sockets of every kind count: the lobby's, the tournament notices' of every page.
    live = [
        await opened("/ws/lobby/", cookie),
        await opened("/ws/tournaments/me/", cookie),
        await opened("/ws/lobby/", cookie, address="10.0.0.6"),  # the cap is the user's, wherever he is
    ]
    text, code = await refused_with(communicator("/ws/lobby/", cookie))
    assert USER_CAP_RU in text and code == guard.CLOSE_TOO_MANY
    # Somebody else from the same address is not affected.
    other = await make_user("other")
    live.append(await opened("/ws/lobby/", await session_cookie(other)))
    # Closing a page gives its place back.
    await live.pop(0).disconnect()
    live.append(await opened("/ws/lobby/", cookie))
    await close_all(live)


async def test_one_address_past_the_cap_is_told_why_and_closed(settings):
    settings.SOCKETS_PER_ADDRESS = 2
    live = [await opened("/ws/lobby/"), await opened("/ws/lobby/")]
    text, code = await refused_with(communicator("/ws/lobby/"))
    assert ADDRESS_CAP_RU in text and code == guard.CLOSE_TOO_MANY
    socket = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[ORIGIN, host_of(ORIGIN), *cookie_header(None, "en")]
    )
    socket.scope["client"] = ["10.0.0.5", 1]
    text, _code = await refused_with(socket)
    assert ADDRESS_CAP_EN in text
    live.append(await opened("/ws/lobby/", address="10.0.0.99"))
    await close_all(live)


async def test_a_cap_of_0_counts_nothing(settings):
    settings.SOCKETS_PER_ADDRESS = 0
    settings.SOCKETS_PER_USER = 0
    live = [await opened("/ws/lobby/") for _ in range(5)]
    await close_all(live)


def test_a_dead_process_leaks_its_places_for_two_windows_at_most(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(limits.time, "time", lambda: now[0])
    owners = [("address", "10.0.0.5", 2)]
    dead = [limits.SocketLease(owners, seconds=60) for _ in range(2)]
    assert [lease.take() for lease in dead] == ["", ""]  # never released, never renewed
    assert limits.SocketLease(owners, seconds=60).take() == "address"
    now[0] += 60
    assert limits.SocketLease(owners, seconds=60).take() == "address"  # still counted: the previous window
    now[0] += 60
    fresh = limits.SocketLease(owners, seconds=60)
    assert fresh.take() == ""


def test_a_live_socket_keeps_its_place_by_renewing_it(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(limits.time, "time", lambda: now[0])
    owners = [("user", 7, 1)]
    live = limits.SocketLease(owners, seconds=60)
    assert live.take() == ""
    for _ in range(5):
        now[0] += 60
        live.renew()
        assert limits.SocketLease(owners, seconds=60).take() == "user"
    live.release()
    assert limits.SocketLease(owners, seconds=60).take() == ""


class DownCache:
    """The cache while Redis restarts: every call raises."""

    def __getattr__(self, name):
        def down(*args, **kwargs):
            raise ConnectionError("Error 111 connecting to redis:6379. Connection refused.")

        return down


async def test_an_unreachable_cache_admits_the_socket_uncounted(monkeypatch, settings):
    settings.SOCKETS_PER_ADDRESS = 1
    monkeypatch.setattr(limits, "cache", DownCache())
    live = [await opened("/ws/lobby/"), await opened("/ws/lobby/")]
    await close_all(live)


def flaky(method, failures: int | None):
    """`method`, raising ConnectionError the first `failures` times (None: always)."""
    calls = {"n": 0}

    async def call(*args, **kwargs):
        calls["n"] += 1
        if failures is None or calls["n"] <= failures:
            raise ConnectionError("Connection closed by server.")
        return await method(*args, **kwargs)

    return call


@database_sync_to_async
def open_table(host):
    return table_services.do_create_table(rules=engine.Rules(players=2), host=host)


@pytest.mark.parametrize("kind", ["lobby", "table", "event notices"])
async def test_a_redis_error_closes_with_try_again_and_the_reconnect_gets_in(monkeypatch, kind):
    """The first socket after a Redis restart meets the error: it is closed with 1013 (the
    browser reconnects with backoff), not a 500, and the browser's next try is served."""
    user = await make_user("ann")
    cookie = await session_cookie(user)
    path = {
        "lobby": "/ws/lobby/",
        "table": f"/ws/table/{(await open_table(user)).pk}/",
        "event notices": "/ws/tournaments/me/",
    }[kind]
    layer = get_channel_layer()
    monkeypatch.setattr(layer, "group_add", flaky(layer.group_add, failures=1))
    first = communicator(path, cookie)
    await first.connect(timeout=FRAME_TIMEOUT)
    assert await first.receive_output(timeout=FRAME_TIMEOUT) == {
        "type": "websocket.close",
        "code": guard.CLOSE_TRY_AGAIN,
    }
    await first.wait(timeout=FRAME_TIMEOUT)
    again = communicator(path, cookie)
    accepted, _ = await again.connect(timeout=FRAME_TIMEOUT)
    assert accepted
    if kind != "event notices":
        assert "hx-swap-oob" in await again.receive_from(timeout=FRAME_TIMEOUT)
    await again.disconnect()


@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/tournaments/me/"])
async def test_a_handshake_while_redis_is_down_is_closed_with_try_again_not_a_500(monkeypatch, path):
    cookie = await session_cookie(await make_user("ben"))
    layer = get_channel_layer()
    monkeypatch.setattr(layer, "group_add", flaky(layer.group_add, failures=None))
    socket = communicator(path, cookie)
    accepted, _ = await socket.connect(timeout=FRAME_TIMEOUT)  # raised (a 500) before
    assert accepted
    closing = await socket.receive_output(timeout=FRAME_TIMEOUT)
    assert closing == {"type": "websocket.close", "code": guard.CLOSE_TRY_AGAIN}
    await socket.wait(timeout=FRAME_TIMEOUT)  # the application ended without raising
