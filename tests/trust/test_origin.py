"""The websocket Origin check compares scheme, host and port with the site's own origin."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from durak_site.asgi import application
from durak_site.origins import origin_allowed
from games import engine
from games.services import tables
from tests.tournaments.helpers import make_event

pytestmark = [pytest.mark.django_db(transaction=True)]

SITE = b"127.0.0.1:8000"


def scope(origin: bytes | None, host: bytes | None = SITE, scheme: str = "ws", extra=()) -> dict:
    headers = [*extra]
    if origin is not None:
        headers.append((b"origin", origin))
    if host is not None:
        headers.append((b"host", host))
    return {"type": "websocket", "scheme": scheme, "headers": headers}


@pytest.mark.parametrize(
    "origin, host, scheme, allowed",
    [
        (b"http://127.0.0.1:8000", SITE, "ws", True),
        (b"http://127.0.0.1:9999", SITE, "ws", False),  # another port of the same host
        (b"https://127.0.0.1:8000", SITE, "ws", False),  # another scheme
        (b"http://localhost:8000", SITE, "ws", False),  # another host
        (b"http://evil.example", SITE, "ws", False),
        (b"http://127.0.0.1", b"127.0.0.1", "ws", True),  # default port on both sides
        (b"http://127.0.0.1:80", b"127.0.0.1", "ws", True),
        (b"https://localhost", b"localhost", "wss", True),
        (b"http://localhost", b"localhost", "wss", False),  # a page over http for a wss socket
        (b"http://evil.example:8000", b"evil.example:8000", "ws", False),  # Host not in ALLOWED_HOSTS
        (b"null", SITE, "ws", False),
        (b"http://127.0.0.1:notaport", SITE, "ws", False),
        (None, SITE, "ws", False),  # no Origin at all
        (b"http://127.0.0.1:8000", None, "ws", False),  # no Host: no own origin to compare with
    ],
)
def test_origin_is_scheme_host_and_port(origin, host, scheme, allowed):
    assert origin_allowed(scope(origin, host, scheme)) is allowed


def test_trusted_origins_are_accepted_exactly(settings):
    settings.ALLOWED_HOSTS = ["durak.example", "127.0.0.1"]
    settings.CSRF_TRUSTED_ORIGINS = ["https://durak.example", "https://*.clubs.example"]
    assert origin_allowed(scope(b"https://durak.example", b"127.0.0.1:8000"))
    assert not origin_allowed(scope(b"http://durak.example", b"127.0.0.1:8000"))
    assert not origin_allowed(scope(b"https://durak.example:8443", b"127.0.0.1:8000"))
    assert origin_allowed(scope(b"https://moscow.clubs.example", b"127.0.0.1:8000"))
    assert not origin_allowed(scope(b"http://moscow.clubs.example", b"127.0.0.1:8000"))
    assert not origin_allowed(scope(b"https://clubs.example.evil", b"127.0.0.1:8000"))


def test_behind_a_tls_proxy_the_forwarded_scheme_counts(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.ALLOWED_HOSTS = ["durak.example"]
    forwarded = [(b"x-forwarded-proto", b"https")]
    assert origin_allowed(scope(b"https://durak.example", b"durak.example", extra=forwarded))
    assert not origin_allowed(scope(b"http://durak.example", b"durak.example", extra=forwarded))
    assert not origin_allowed(scope(b"https://durak.example", b"durak.example"))  # no header: plain http


@pytest.mark.asyncio
@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/table/{table}/", "/ws/tournaments/{event}/"])
async def test_a_page_on_another_port_cannot_open_a_socket(path):
    table = await database_sync_to_async(tables.do_create_table)(rules=engine.Rules(players=2))
    event = await database_sync_to_async(make_event)()  # a socket to an event that does not exist is refused
    for origin, accepted in ((b"http://127.0.0.1:9999", False), (b"http://127.0.0.1:8000", True)):
        communicator = WebsocketCommunicator(
            application, path.format(table=table.pk, event=event.pk), headers=[(b"origin", origin), (b"host", SITE)]
        )
        connected, _ = await communicator.connect(timeout=5)
        await communicator.disconnect()
        assert connected is accepted, origin
