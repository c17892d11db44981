"""Emotes and quick phrases at a table: a fixed list, never free text.

A seated player sends one by its key (`do_send_emote`); the table's sockets show
it as a bubble at his seat, in each viewer's language. At most EMOTE_RATE_COUNT
per EMOTE_RATE_SECONDS per player (counted in Django's cache, a sliding window:
shared by the whole site with Redis). A player mutes them at one table
(`TableSeat.emotes_muted`) or everywhere (`Profile.emotes_muted`,
`do_mute_emotes`): the group message names the players muted at send time and
every socket of a muted player drops it (games.table.consumers), so nothing of
them reaches his browser.
"""

from __future__ import annotations

import time

from django.core.cache import cache
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.errors import Refusal
from games.models import Profile, Table, TableSeat
from games.selectors import emote_mutes

from . import notify

# key -> what it says (translated when shown, in each viewer's language)
EMOTES = {
    "good_move": pgettext_lazy("emote", "Good move!"),
    "thanks": pgettext_lazy("emote", "Thanks"),
    "oops": pgettext_lazy("emote", "Oops"),
    "good_luck": pgettext_lazy("emote", "Good luck"),
    "thumbs_up": "👍",
    "wow": "😮",
}
EMOTE_RATE_COUNT = 3  # at most this many emotes ...
EMOTE_RATE_SECONDS = 10  # ... per player in this many seconds
MUTE_SCOPES = ("table", "everywhere")


class EmoteRefused(Refusal):
    """An emote that is not sent (unknown, too fast, not from a seat)."""


def emote_text(key: str) -> str:
    """What the emote `key` says in the active language ("" for no such emote)."""
    return str(EMOTES.get(key, ""))


def emote_choices() -> list[dict]:
    """The emotes a player may send, in the list's order: {"key", "text"}."""
    return [{"key": key, "text": str(text)} for key, text in EMOTES.items()]


def _within_rate(user_id: int) -> bool:
    """Count one emote of `user_id`; False (and nothing counted) when the last
    EMOTE_RATE_SECONDS already hold EMOTE_RATE_COUNT of his."""
    key = f"emotes:sent:{user_id}"
    now = time.time()
    recent = [t for t in cache.get(key) or () if t > now - EMOTE_RATE_SECONDS]
    if len(recent) >= EMOTE_RATE_COUNT:
        return False
    cache.set(key, [*recent, now], timeout=EMOTE_RATE_SECONDS + 1)
    return True


def muted_user_ids(table_id: int) -> list[int]:
    """The players seated at `table_id` who see no emotes: muted there or everywhere."""
    seats = TableSeat.objects.filter(table_id=table_id, user__isnull=False)
    here = set(seats.filter(emotes_muted=True).values_list("user_id", flat=True))
    everywhere = set(
        Profile.objects.filter(emotes_muted=True, user_id__in=seats.values("user_id")).values_list("user_id", flat=True)
    )
    return sorted(here | everywhere)


def do_send_emote(*, table_id: int, user, emote) -> dict:
    """Send the emote `emote` (a key of EMOTES) from `user`'s seat at `table_id` to the
    table's sockets after commit. Returns {"seat", "emote"}; refuses an unknown emote,
    one from someone not seated there, and one over the rate, sending nothing."""
    if user is None or not user.is_authenticated:
        raise EmoteRefused(_("Sign in to send emotes."))
    if not isinstance(emote, str) or emote not in EMOTES:
        raise EmoteRefused(_("There is no such emote: choose one from the list."))
    with transaction.atomic():
        if not Table.objects.filter(pk=table_id).exists():
            raise EmoteRefused(_("There is no such table."))
        seat = TableSeat.objects.filter(table_id=table_id, user=user).values_list("number", flat=True).first()
        if seat is None:
            raise EmoteRefused(_("Only the players at this table send emotes."))
        if not _within_rate(user.pk):
            raise EmoteRefused(
                _("You are sending emotes too fast: at most %(count)s in %(seconds)s seconds."),
                count=EMOTE_RATE_COUNT,
                seconds=EMOTE_RATE_SECONDS,
            )
        message = {"seat": seat, "emote": emote, "muted": muted_user_ids(table_id)}
        transaction.on_commit(lambda: notify.emote_sent(table_id, message))
    return {"seat": seat, "emote": emote}


def do_mute_emotes(*, table_id: int, user, scope, muted) -> dict:
    """Mute (or unmute) emotes for `user` at `table_id` ("table": his seat there) or at
    every table ("everywhere"). Returns his mutes (`selectors.emote_mutes`) and tells
    his other sockets at the table after commit."""
    if user is None or not user.is_authenticated:
        raise EmoteRefused(_("Sign in to mute emotes."))
    if scope not in MUTE_SCOPES or not isinstance(muted, bool):
        raise EmoteRefused(_("Malformed message: mute emotes at this table or everywhere."))
    with transaction.atomic():
        if scope == "table":
            if not TableSeat.objects.filter(table_id=table_id, user=user).update(emotes_muted=muted):
                raise EmoteRefused(_("Only the players at this table mute emotes here: mute them everywhere."))
        else:
            Profile.objects.filter(user=user).update(emotes_muted=muted)
        mutes = emote_mutes(table_id, user.pk)
        user_id = user.pk
        transaction.on_commit(lambda: notify.emote_mutes_changed(table_id, user_id, mutes))
    return mutes
