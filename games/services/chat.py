"""The table chat: posting a message (one transaction) and reading the recent ones.

Anyone signed in who may watch the table may chat (guests too); the consumer
checks who may watch. Texts are stored as typed and escaped by the templates.
"""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.models import ChatMessage, Table

from . import notify

CHAT_MAX_LENGTH = 300
CHAT_RATE_MESSAGES = 5  # at most this many messages ...
CHAT_RATE_SECONDS = 10  # ... per user in this many seconds
CHAT_HISTORY = 50


class ChatRefused(Exception):
    """A message the server will not post; `reason` is shown to the sender."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def message_data(message: ChatMessage) -> dict:
    """JSON-safe form of a message, as the channel layer carries it."""
    return {
        "id": message.pk,
        "name": message.name,
        "text": message.text,
        "created_at": message.created_at.isoformat(),
    }


def do_post_chat(*, table_id: int, user, text) -> dict:
    """Post `text` at the table as `user`; tells the table's sockets after commit."""
    from games.selectors import display_name

    if user is None or not user.is_authenticated:
        raise ChatRefused("Sign in to chat.")
    if not isinstance(text, str):
        raise ChatRefused("A chat message is text.")
    text = " ".join(text.split())
    if not text:
        raise ChatRefused("The message is empty.")
    if len(text) > CHAT_MAX_LENGTH:
        raise ChatRefused(f"A message is at most {CHAT_MAX_LENGTH} characters.")
    now = timezone.now()
    with transaction.atomic():
        # The user's row is the lock that makes the rate check exact across processes.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if not Table.objects.filter(pk=table_id).exists():
            raise ChatRefused("There is no such table.")
        recent = ChatMessage.objects.filter(
            user=user, created_at__gte=now - timedelta(seconds=CHAT_RATE_SECONDS)
        ).count()
        if recent >= CHAT_RATE_MESSAGES:
            raise ChatRefused("You are sending messages too fast: wait a few seconds.")
        message = ChatMessage.objects.create(table_id=table_id, user=user, name=display_name(user), text=text)
        data = message_data(message)
        transaction.on_commit(
            lambda: notify._send(notify.table_group(table_id), {"type": "table.chat", "message": data})
        )
    return data


def recent_chat(table_id: int, limit: int = CHAT_HISTORY) -> list[dict]:
    messages = ChatMessage.objects.filter(table_id=table_id).order_by("-created_at", "-pk")[:limit]
    return [message_data(m) for m in reversed(messages)]
