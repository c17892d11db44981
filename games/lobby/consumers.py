"""The lobby's live list of tables.

Every connection joins the group "lobby"; on `lobby.changed` (sent by
games.services.notify after a commit) it re-renders the tables fragment for its
own user and sends it as an htmx out-of-band swap. Lobby changes are rare, so
reading the database here is fine. A (re)connecting browser gets the list at once.
"""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation

from games.scope import language_of
from games.services.notify import LOBBY_GROUP

from .rendering import render_tables


class LobbyConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.language = language_of(self.scope)
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.accept()
        await self.send_tables()

    async def disconnect(self, code):
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        """The lobby only listens; anything the browser sends is ignored."""

    async def lobby_changed(self, event):
        await self.send_tables()

    async def send_tables(self):
        await self.send(text_data=await self._render())

    @database_sync_to_async
    def _render(self) -> str:
        user = self.scope.get("user")
        csrf_token = (self.scope.get("cookies") or {}).get(settings.CSRF_COOKIE_NAME)
        with translation.override(self.language):
            return render_tables(user, csrf_token, oob=True)
