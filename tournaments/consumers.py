"""Live event pages and the per-player "where to sit" notice.

EventConsumer: joins the event's group ("tournament-<id>"); on `event.changed`
(tournaments.notify, after a commit) it re-renders the event panel for its own
viewer and sends it as an htmx out-of-band swap of #event-panel.

SeatConsumer: every page of a signed-in player (templates/base.html includes
tournaments/partials/seat_socket.html) joins "user-<id>"; when a round seats
him, or a director announces something, it sends #tournament-notice.
Both only listen: what the browser sends is ignored.
"""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.http import HttpRequest
from django.middleware.csrf import CsrfViewMiddleware, get_token
from django.template.loader import render_to_string
from django.utils import translation

from .notify import event_group, user_group


def language_of(scope) -> str:
    """The viewer's language as LocaleMiddleware picks it: the cookie, Accept-Language, the default."""
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies") or {})
    for name, value in scope.get("headers") or []:
        if name == b"accept-language":
            request.META["HTTP_ACCEPT_LANGUAGE"] = value.decode("latin-1")
    return translation.get_language_from_request(request)


def csrf_token_of(scope) -> str:
    """A form token for the viewer's CSRF cookie: the panel the socket sends holds
    forms (enter, check in), and without it their posts would be refused."""
    request = HttpRequest()
    request.COOKIES = dict(scope.get("cookies") or {})
    CsrfViewMiddleware(lambda request: None).process_request(request)
    return get_token(request)


class EventConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.language = language_of(self.scope)
        self.csrf_token = csrf_token_of(self.scope)
        self.group = event_group(self.tournament_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        html = await self._render()
        if html is None:  # no such event, or a draft this viewer may not see
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.close()  # before accept: the handshake is refused, as the table's socket does
            return
        await self.accept()
        if html:
            await self.send(text_data=html)

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        """Listen only."""

    async def event_changed(self, event):
        await self.send_panel()

    async def send_panel(self):
        html = await self._render()
        if html:
            await self.send(text_data=html)

    @database_sync_to_async
    def _render(self) -> str | None:
        from .models import Tournament
        from .services import can_direct
        from .views import render_panel

        event = Tournament.objects.filter(pk=self.tournament_id).first()
        user = self.scope.get("user")
        if event is None or (event.status == Tournament.Status.DRAFT and not can_direct(user)):
            return None  # a draft is its directors' only, as on its page
        with translation.override(self.language):
            return render_panel(event, user, oob=True, csrf_token=self.csrf_token)


class SeatConsumer(AsyncWebsocketConsumer):
    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close()
            return
        self.user = user
        self.language = language_of(self.scope)
        self.group = user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None):
        """Listen only."""

    async def seat_assigned(self, event):
        await self.send(text_data=await self._render(seat=True))

    async def event_announcement(self, event):
        await self.send(text_data=await self._render(announcement=event))

    async def user_changed(self, event):
        await self.send(text_data=await self._render(seat=True))

    @database_sync_to_async
    def _render(self, seat: bool = False, announcement: dict | None = None) -> str:
        from .models import Tournament
        from .selectors import seat_for

        context = {"oob": True, "seat": seat_for(self.user) if seat else None}
        if announcement:
            context["announcement"] = announcement["text"]
            context["announcement_event"] = Tournament.objects.filter(pk=announcement["tournament_id"]).first()
        with translation.override(self.language):
            return render_to_string("tournaments/partials/seat_notice.html", context)
