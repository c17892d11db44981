"""Reads of the friends app: the friends list with who is here, and invitations received."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from games import selectors as games
from games import wording

from .models import Block, Follow, Invitation

INVITATIONS_SHOWN_HOURS = 3  # an older invitation is to a game long gone
INVITATIONS_SHOWN = 20


def friends_of(user) -> list[dict]:
    """Whom `user` follows, those at the club first (`games.selectors.players_present`)."""
    rows = list(Follow.objects.filter(follower=user).select_related("followed__profile").order_by("followed__username"))
    present = games.players_present([f.followed_id for f in rows])
    order = {"online": 0, "recent": 1, "": 2}
    friends = [
        {
            "user": f.followed,
            "name": games.display_name(f.followed),
            "presence": present.get(f.followed_id, ""),
            # «была несколько минут назад»: a past verb, in the friend's gender
            "recently": wording.said_of(wording.RECENTLY_HERE, games.address_of(f.followed)),
        }
        for f in rows
    ]
    return sorted(friends, key=lambda f: order[f["presence"]])


def invitations_for(user, now=None) -> list[Invitation]:
    """The table invitations `user` was sent lately, newest first (none from a player he keeps away)."""
    since = (now or timezone.now()) - timedelta(hours=INVITATIONS_SHOWN_HOURS)
    kept_away = Block.objects.filter(owner=user).values("other_id")
    invitations = list(
        Invitation.objects.filter(recipient=user, created_at__gte=since)
        .exclude(sender_id__in=kept_away)
        .select_related("sender")[:INVITATIONS_SHOWN]
    )
    closed = games.closed_table_ids(invitation.table_id for invitation in invitations)
    for invitation in invitations:
        invitation.table_gone = invitation.table_id in closed  # its link would lead nowhere
    return invitations


def relation(user, other) -> dict:
    """How `user` stands to `other`: follows him, keeps him away ("mute" / "block" / "")."""
    if user is None or not user.is_authenticated or other is None or user.pk == other.pk:
        return {"follows": False, "kept_away": ""}
    kind = Block.objects.filter(owner=user, other=other).values_list("kind", flat=True).first()
    return {"follows": Follow.objects.filter(follower=user, followed=other).exists(), "kept_away": kind or ""}


def kept_away(user) -> list[Block]:
    return list(Block.objects.filter(owner=user).select_related("other").order_by("other__username"))
