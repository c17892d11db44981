"""Every websocket of the site passes here (durak_site.asgi, inside the auth middleware).

Caps: one signed-in user holds at most SOCKETS_PER_USER open sockets and one address
at most SOCKETS_PER_ADDRESS (games.limits, counted in the cache so that every
process shares the count; a live socket renews its place once per
SOCKET_LEASE_SECONDS, so a process that dies leaks nothing for long). Past a cap
the socket is accepted, told why in the reader's language (an out-of-band swap
into base.html's #socket-notice) and closed with CLOSE_TOO_MANY: htmx's ws
extension does not reconnect on that code.

Redis unavailable (a restart: the first command on each pooled connection fails):
a socket whose consumer raises a connection error, before or after accepting, is
closed with CLOSE_TRY_AGAIN (1013, "try again later"), on which the browser
reconnects with backoff, instead of daphne answering the handshake with a 500.
The caps' own cache calls fail open: an unreachable cache admits the socket uncounted.
"""

from __future__ import annotations

import asyncio
import logging
import random

from asgiref.sync import sync_to_async
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext
from redis.exceptions import RedisError

from games import limits
from games.scope import language_of

log = logging.getLogger(__name__)

CLOSE_TOO_MANY = 4429  # past a cap (as HTTP's 429); the browser does not reconnect
CLOSE_TRY_AGAIN = 1013  # "try again later": the browser reconnects with backoff
UNAVAILABLE = (OSError, asyncio.TimeoutError, RedisError)  # OSError: ConnectionError included


def owners_of(scope) -> list[tuple[str, object, int]]:
    """Whose counts a socket takes a place in: its user's (signed in) and its address's."""
    owners = []
    user = scope.get("user")
    if user is not None and getattr(user, "is_authenticated", False):
        owners.append(("user", user.pk, limits.setting("SOCKETS_PER_USER")))
    client = scope.get("client") or ("unknown",)
    owners.append(("address", client[0] or "unknown", limits.setting("SOCKETS_PER_ADDRESS")))
    return owners


def notice_html(scope, kind: str) -> str:
    with translation.override(language_of(scope)):
        if kind == "user":
            message = gettext("Too many pages of the site are open: close some, then reload this one.")
        else:
            message = gettext("Too many connections from your address: try again later.")
        return render_to_string("games/accounts/partials/socket_notice.html", {"message": message})


CACHE_WAIT = 2.0  # seconds: a cache call that takes longer counts as the cache being away


async def _in_thread(function):
    """The cache's calls off the event loop, and off the thread that runs database work, and
    bounded: while Redis restarts a call may hang, and a handshake (or the close of a socket
    being cancelled) must not wait for it."""
    return await asyncio.wait_for(sync_to_async(function, thread_sensitive=False)(), CACHE_WAIT)


class SocketGuard:
    """ASGI middleware for the websocket routes: caps, and an answer when Redis is away."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.inner(scope, receive, send)
        lease = limits.SocketLease(owners_of(scope))
        try:
            full = await _in_thread(lease.take)
        except UNAVAILABLE:
            log.warning("websocket caps: the cache is unavailable, %s admitted uncounted", scope.get("path"))
            lease.window, full = None, ""
        if full:
            return await _refuse(scope, receive, send, full)
        renewing = asyncio.ensure_future(_keep(lease)) if lease.window is not None else None
        try:
            await _serve(self.inner, scope, receive, send)
        finally:
            if renewing is not None:
                renewing.cancel()
            try:
                await _in_thread(lease.release)
            except UNAVAILABLE:
                pass  # its places expire with their window


async def _keep(lease: limits.SocketLease) -> None:
    """Move the socket's places to each new window while it lives (a little after the
    window starts, spread so that sockets do not all write at the same instant)."""
    while True:
        await asyncio.sleep(lease.seconds_to_next_window() + random.uniform(0, min(2.0, lease.seconds / 20)))
        try:
            await _in_thread(lease.renew)
        except UNAVAILABLE:
            pass  # the next window tries again


async def _refuse(scope, receive, send, kind: str) -> None:
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": notice_html(scope, kind)})
    await send({"type": "websocket.close", "code": CLOSE_TOO_MANY})


class _Handshake:
    """The connection as the consumer uses it, remembering whether it accepted or closed
    (and whether the browser left), so that a failure is answered exactly once."""

    def __init__(self, receive, send):
        self._receive, self._send = receive, send
        self.accepted = self.closed = self.gone = False

    async def receive(self):
        message = await self._receive()
        if message["type"] == "websocket.disconnect":
            self.gone = True
        return message

    async def send(self, message):
        if message["type"] == "websocket.accept":
            self.accepted = True
        elif message["type"] == "websocket.close":
            self.closed = True
        await self._send(message)

    async def close(self, code: int) -> None:
        if self.closed or self.gone:
            return
        if not self.accepted:
            await self._send({"type": "websocket.accept"})
        await self._send({"type": "websocket.close", "code": code})


async def _serve(inner, scope, receive, send) -> None:
    """The socket's consumer; a connection error from it (Redis away) closes the socket
    with CLOSE_TRY_AGAIN, on which the browser reconnects with backoff, instead of daphne
    answering the handshake with a 500. Not retried here: a retry held the handshake open
    while Redis came back, and the browser's own reconnect already does it."""
    handshake = _Handshake(receive, send)
    try:
        await inner(scope, handshake.receive, handshake.send)
    except UNAVAILABLE as error:
        log.warning("websocket %s: %r; closed with %s", scope.get("path"), error, CLOSE_TRY_AGAIN)
        await handshake.close(CLOSE_TRY_AGAIN)
