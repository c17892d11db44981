"""Browsers over websockets, without a browser: sessions, connecting, reading frames."""

from __future__ import annotations

import json
import re

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from durak_site.asgi import application

ORIGIN = (b"origin", b"http://127.0.0.1:8000")
HOST = (b"host", b"127.0.0.1:8000")  # the site ORIGIN is a page of
FRAME_TIMEOUT = 5
MOVES_RE = re.compile(r'data-moves="(\d*)"')
ERROR_RE = re.compile(r'<div id="table-error"[^>]*>(.*?)</div>', re.S)


@database_sync_to_async
def session_cookie(user, invited=()) -> str:
    """The session cookie of `user` logged in (invited to the tables `invited`)."""
    client = Client()
    client.force_login(user)
    if invited:
        session = client.session
        session["invited_tables"] = list(invited)
        session.save()
    return client.cookies["sessionid"].value


def host_of(origin) -> tuple:
    """The Host header of a page served from `origin` (an (b"origin", value) header)."""
    _name, value = origin
    return (b"host", value.split(b"://", 1)[-1] or b"127.0.0.1:8000")


def cookie_header(cookie: str | None = None, language: str | None = None) -> list:
    cookies = []
    if cookie:
        cookies.append(f"sessionid={cookie}")
    if language:
        cookies.append(f"django_language={language}")
    return [(b"cookie", "; ".join(cookies).encode())] if cookies else []


async def connect(path: str, cookie: str | None = None, language: str | None = None, origin=ORIGIN, headers=()):
    """(communicator, accepted) for a websocket at `path`; the Host header is the origin's
    host and port (a page of the site itself) unless `headers` name one."""
    headers = list(headers)
    if not any(name == b"host" for name, _value in headers):
        headers.append(host_of(origin))
    communicator = WebsocketCommunicator(
        application, path, headers=[origin, *cookie_header(cookie, language), *headers]
    )
    accepted, _ = await communicator.connect(timeout=FRAME_TIMEOUT)
    return communicator, accepted


async def connect_table(table_id: int, cookie: str | None = None, language: str | None = None):
    """A table socket that was accepted, and its first frame (the full state)."""
    communicator, accepted = await connect(f"/ws/table/{table_id}/", cookie, language)
    assert accepted
    first = await communicator.receive_from(timeout=FRAME_TIMEOUT)
    assert 'id="table-state"' in first and 'hx-swap-oob="true"' in first
    return communicator, first


def moves_in(frame: str) -> int | None:
    """The move count a state frame shows (None: not a state frame)."""
    match = MOVES_RE.search(frame)
    return int(match.group(1)) if match and match.group(1) else None


def error_text(frame: str) -> str:
    match = ERROR_RE.search(frame)
    assert match, frame
    return match.group(1).strip()


def frame(**fields) -> str:
    """A frame as htmx's ws extension sends a form: its fields plus HEADERS."""
    fields.setdefault("HEADERS", {"HX-Request": "true", "HX-Trigger": None, "HX-Target": "table-live"})
    return json.dumps(fields)
