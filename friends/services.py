"""Following players, keeping one away, and inviting a friend to one's private table.

The limits of the trust work: a guest cannot follow (a guest account is thrown away,
and following is how strangers would be pestered); follows and invitations are
rate-limited per player (`games.limits.hit`, Django's cache); a player who muted or
blocked another gets no invitation from him, and a blocked one cannot follow him;
an invitation to the same table is sent once.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games import limits, selectors
from games.errors import Refusal
from games.services.tables import is_guest

from .models import Block, Follow, Invitation

FOLLOW_RATE = (30, 3600)  # follows one player may make per hour
INVITE_RATE = (10, 600)  # table invitations one player may send per 10 minutes


class FriendRefused(Refusal):
    """A follow, block or invitation the site will not make."""


def _other(user, other_id):
    if user is None or not user.is_authenticated:
        raise FriendRefused(_("Sign in first."))
    other = get_user_model().objects.filter(pk=other_id).first() if str(other_id).isdecimal() else None
    if other is None:
        raise FriendRefused(_("There is no such player."))
    if other.pk == user.pk:
        raise FriendRefused(_("That is you."))
    return other


def do_follow(*, user, other_id) -> None:
    """`user` follows the player `other_id` (following him again changes nothing)."""
    other = _other(user, other_id)
    if is_guest(user):
        raise FriendRefused(_("Guests cannot follow players: sign up first."))
    if Block.objects.filter(owner=other, other=user, kind=Block.Kind.BLOCK).exists():
        raise FriendRefused(_("This player does not accept followers from you."))
    if Follow.objects.filter(follower=user, followed=other).exists():
        return
    if not limits.hit("friends-follow", user.pk, FOLLOW_RATE):
        raise FriendRefused(_("You have followed too many players lately: try again later."))
    with transaction.atomic():
        Follow.objects.get_or_create(follower=user, followed=other)


def do_unfollow(*, user, other_id) -> None:
    other = _other(user, other_id)
    Follow.objects.filter(follower=user, followed=other).delete()


def do_keep_away(*, user, other_id, kind: str) -> None:
    """`user` mutes (no invitations from him) or blocks (nor follows) the player `other_id`."""
    other = _other(user, other_id)
    if kind not in Block.Kind.values:
        raise FriendRefused(_("Choose mute or block."))
    with transaction.atomic():
        Block.objects.update_or_create(owner=user, other=other, defaults={"kind": kind})
        if kind == Block.Kind.BLOCK:
            Follow.objects.filter(follower=other, followed=user).delete()
        Invitation.objects.filter(sender=other, recipient=user).delete()


def do_let_back(*, user, other_id) -> None:
    other = _other(user, other_id)
    Block.objects.filter(owner=user, other=other).delete()


def do_invite(*, user, friend_id) -> Invitation:
    """Send the friend `friend_id` (a player `user` follows) the invite link of the private
    table `user` hosts (`games.selectors.private_table_to_invite_to`); it shows on the
    friend's /friends/ page."""
    friend = _other(user, friend_id)
    if not Follow.objects.filter(follower=user, followed=friend).exists():
        raise FriendRefused(_("Follow the player first: you invite the players on your friends list."))
    if Block.objects.filter(owner=friend, other=user).exists():
        raise FriendRefused(_("This player does not take invitations from you."))
    table = selectors.private_table_to_invite_to(user)
    if table is None:
        raise FriendRefused(_("Open a private table first: the invitation carries its link."))
    if Invitation.objects.filter(sender=user, recipient=friend, table_id=table["id"]).exists():
        raise FriendRefused(_("You have invited this player to this table already."))
    if not limits.hit("friends-invite", user.pk, INVITE_RATE):
        raise FriendRefused(_("You have sent too many invitations lately: try again later."))
    link = reverse("games:table-invite", args=[table["invite_token"]])
    with transaction.atomic():
        return Invitation.objects.create(sender=user, recipient=friend, table_id=table["id"], link=link)
