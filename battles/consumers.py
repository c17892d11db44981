"""The battle's live board: joins its event's group ("tournament-<id>", tournaments.notify), so
whatever changes the event (a game recorded, an entry) or the battle (an answer: the services
send the same message) re-renders the board for this viewer as an htmx out-of-band swap."""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import translation

from tournaments.consumers import language_of
from tournaments.notify import event_group


class BoardConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.battle_id = int(self.scope["url_route"]["kwargs"]["battle_id"])
        self.language = language_of(self.scope)
        tournament_id = await self._tournament_id()
        if tournament_id is None:
            await self.close()
            return
        self.group = event_group(tournament_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        """Listen only."""

    async def event_changed(self, event):
        html = await self._render()
        if html:
            await self.send(text_data=html)

    async def event_announcement(self, event):
        """(Announcements go to the players' own sockets.)"""

    @database_sync_to_async
    def _tournament_id(self):
        from .models import Battle

        return Battle.objects.filter(pk=self.battle_id).values_list("tournament_id", flat=True).first()

    @database_sync_to_async
    def _render(self) -> str | None:
        from .models import Battle
        from .views import render_board

        battle = Battle.objects.filter(pk=self.battle_id).select_related("tournament", "organiser").first()
        if battle is None:
            return None
        with translation.override(self.language):
            return render_board(battle, self.scope.get("user"), oob=True)
