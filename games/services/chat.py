"""The table chat: posting a message (one transaction). Reading it: `selectors.recent_chat`.

Anyone signed in who may watch the table may chat (guests too); the consumer
checks who may watch. Texts are stored as typed and escaped by the templates.
"""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from games.errors import ChatRefused
from games.models import ChatMessage, Table
from games.selectors import chat_message_data, display_name

from . import notify

CHAT_MAX_LENGTH = 300
CHAT_RATE_MESSAGES = 5  # at most this many messages ...
CHAT_RATE_SECONDS = 10  # ... per user in this many seconds


def do_post_chat(*, table_id: int, user, text) -> dict:
    """Post `text` at the table as `user`; tells the table's sockets after commit."""
    if user is None or not user.is_authenticated:
        raise ChatRefused(_("Sign in to chat."))
    if not isinstance(text, str):
        raise ChatRefused(_("A chat message is text."))
    try:
        text.encode("utf-8")  # lone surrogates ("\ud800") are no text: no database stores them
    except UnicodeEncodeError:
        raise ChatRefused(_("A chat message is text.")) from None
    text = " ".join("".join(c for c in text if c.isprintable() or c.isspace()).split())
    if not text:
        raise ChatRefused(_("The message is empty."))
    if len(text) > CHAT_MAX_LENGTH:
        raise ChatRefused(
            ngettext_lazy(
                "A message is at most %(count)s character.", "A message is at most %(count)s characters.", "count"
            ),
            count=CHAT_MAX_LENGTH,
        )
    now = timezone.now()
    with transaction.atomic():
        # The user's row is the lock that makes the rate check exact across processes.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if not Table.objects.filter(pk=table_id).exists():
            raise ChatRefused(_("There is no such table."))
        recent = ChatMessage.objects.filter(
            user=user, created_at__gte=now - timedelta(seconds=CHAT_RATE_SECONDS)
        ).count()
        if recent >= CHAT_RATE_MESSAGES:
            raise ChatRefused(_("You are sending messages too fast: wait a few seconds."))
        message = ChatMessage.objects.create(table_id=table_id, user=user, name=display_name(user), text=text)
        data = chat_message_data(message)
        transaction.on_commit(lambda: notify.chat_posted(table_id, data))
    return data
