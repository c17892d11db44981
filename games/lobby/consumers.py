"""The lobby's live list of tables.

Every connection joins the group "lobby" and gets the list at once (a
reconnecting browser is in sync). On `lobby.changed` (sent by
games.services.notify after a commit) nothing is rendered by the socket itself:
the process's lobby sockets are refreshed together (`LobbyHub`), at most once per
LOBBY_REFRESH_SECONDS however many changes came meanwhile, with one read of the
lobby and one render per kind of viewer and language (`rendering.live_frames`).
A socket whose list did not change is sent nothing. So 200 idle lobby sockets
cost one refresh per interval, not 200 renders per change.
"""

from __future__ import annotations

import asyncio
import logging
import weakref

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation

from games.scope import language_of
from games.services.notify import LOBBY_GROUP

from .rendering import live_frames, render_tables

log = logging.getLogger(__name__)

REFRESH_SECONDS = 1.0  # default of settings.LOBBY_REFRESH_SECONDS


class LobbyHub:
    """The lobby sockets of this process (one hub per event loop)."""

    def __init__(self):
        self.sockets: weakref.WeakSet[LobbyConsumer] = weakref.WeakSet()  # (a socket that died unseen goes too)
        self.timer: asyncio.TimerHandle | None = None
        self.last = float("-inf")
        self.refreshes = 0  # (how many were made: the tests count them)

    def changed(self) -> None:
        """A change: refresh every socket once the interval since the last refresh is over."""
        if self.timer is not None:
            return  # already due: this change will be in it
        loop = asyncio.get_running_loop()
        period = float(getattr(settings, "LOBBY_REFRESH_SECONDS", REFRESH_SECONDS))
        self.timer = loop.call_later(max(0.0, self.last + period - loop.time()), self._start)

    def _start(self) -> None:
        self.timer = None  # a change from now on is read by the next refresh
        self.last = asyncio.get_running_loop().time()
        asyncio.ensure_future(self.refresh())

    async def refresh(self) -> None:
        sockets = list(self.sockets)
        if not sockets:
            return
        self.refreshes += 1
        try:
            frames = await database_sync_to_async(_frames_for)(sockets)
        except Exception:  # a database hiccup: the next change refreshes again
            log.exception("lobby: the refresh failed")
            return
        await asyncio.gather(*(socket.send_list(html) for socket, html in frames), return_exceptions=True)


def _frames_for(sockets) -> list[tuple[LobbyConsumer, str]]:
    by_language: dict[str, list[LobbyConsumer]] = {}
    for socket in sockets:
        by_language.setdefault(socket.language, []).append(socket)
    frames = []
    for language, group in by_language.items():
        with translation.override(language):
            html = live_frames([(socket.scope.get("user"), socket.csrf_token) for socket in group])
        frames.extend(zip(group, html, strict=True))
    return frames


_hubs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def hub() -> LobbyHub:
    loop = asyncio.get_running_loop()
    if loop not in _hubs:
        _hubs[loop] = LobbyHub()
    return _hubs[loop]


class LobbyConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message):
        """Channels' dispatch, without its `aclose_old_connections()` (a trip to the
        database thread) for `lobby.changed`, which reads nothing itself."""
        if message["type"] == "lobby.changed":
            return await self.lobby_changed(message)
        return await super().dispatch(message)

    async def connect(self):
        self.language = language_of(self.scope)
        self.csrf_token = (self.scope.get("cookies") or {}).get(settings.CSRF_COOKIE_NAME)
        self.last_frame = None
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        hub().sockets.add(self)  # before the first read: a change after it is refreshed
        try:
            await self.accept()
            await self.send_list(await self._render())
        except BaseException:
            hub().sockets.discard(self)
            raise

    async def disconnect(self, code):
        hub().sockets.discard(self)
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        """The lobby only listens; anything the browser sends is ignored."""

    async def lobby_changed(self, event):
        hub().changed()

    async def send_list(self, html: str) -> None:
        if html != self.last_frame:
            self.last_frame = html
            await self.send(text_data=html)

    @database_sync_to_async
    def _render(self) -> str:
        with translation.override(self.language):
            return render_tables(self.scope.get("user"), self.csrf_token, oob=True)
