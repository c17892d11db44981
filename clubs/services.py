"""Every write to a club, one `do_*` function each, one transaction each."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from games.errors import Refusal
from games.names import name_key

from .models import Club, Membership


class ClubRefused(Refusal):
    """A club action the site will not take; says why."""


def club_name_key(name: str) -> str:
    return name_key(name)


@transaction.atomic
def do_found_club(founder, *, name: str, slug: str, **fields) -> Club:
    """`founder` founds a club and is its owner."""
    if founder is None or not founder.is_authenticated:
        raise ClubRefused(_("Sign in first."))
    try:
        with transaction.atomic():
            club = Club.objects.create(name=name, slug=slug, name_key=club_name_key(name), founded_by=founder, **fields)
    except IntegrityError:
        raise ClubRefused(_("A club with this name or address exists already.")) from None
    Membership.objects.create(club=club, user=founder, role=Membership.Role.OWNER)
    return club


@transaction.atomic
def do_join(user, club) -> Membership:
    """`user` joins an open club (joining again changes nothing)."""
    if user is None or not user.is_authenticated:
        raise ClubRefused(_("Sign in first."))
    if club.join_policy != Club.JoinPolicy.OPEN:
        raise ClubRefused(_("This club takes members by request or invitation."))
    membership, _created = Membership.objects.get_or_create(club=club, user=user)
    return membership


@transaction.atomic
def do_appoint_leader(actor, club, user, *, permissions=()) -> Membership:
    """The owner makes member `user` a leader holding `permissions` (clubs.selectors.PERMISSIONS)."""
    from .selectors import PERMISSIONS

    acting = Membership.objects.filter(club=club, user=actor).first()
    if not (actor.is_superuser or (acting and acting.role == Membership.Role.OWNER)):
        raise ClubRefused(_("Only the club's owner appoints leaders."))
    membership = Membership.objects.select_for_update().filter(club=club, user=user).first()
    if membership is None:
        raise ClubRefused(_("Only a member can become a leader."))
    if membership.role == Membership.Role.OWNER:
        raise ClubRefused(_("The owner cannot be demoted."))
    membership.role = Membership.Role.LEADER
    for permission in PERMISSIONS:
        setattr(membership, f"may_{permission}", permission in permissions)
    membership.save()
    return membership
