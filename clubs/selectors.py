"""Who belongs to a club and who may do what there: the reads every other app asks."""

from __future__ import annotations

from django.db.models import Q

from .models import Club, Membership

# The grants an owner gives a leader; the owner holds them all.
PERMISSIONS = ("run_events", "manage_members", "post_news", "moderate")


def membership_of(user, club) -> Membership | None:
    if user is None or not user.is_authenticated:
        return None
    return Membership.objects.filter(club=club, user=user).first()


def is_member(user, club) -> bool:
    return membership_of(user, club) is not None


def may(user, club, permission: str) -> bool:
    """Whether `user` holds `permission` (one of PERMISSIONS) in `club`: its owner, a leader
    granted it, or the site's superuser. Nobody but the superuser acts for a suspended club."""
    if permission not in PERMISSIONS:
        raise ValueError(permission)
    if user is None or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    if club.suspended_at is not None:
        return False
    membership = membership_of(user, club)
    if membership is None:
        return False
    if membership.role == Membership.Role.OWNER:
        return True
    return membership.role == Membership.Role.LEADER and getattr(membership, f"may_{permission}")


def clubs_where(user, permission: str):
    """The clubs in which `user` holds `permission` (all of them for the superuser)."""
    if permission not in PERMISSIONS:
        raise ValueError(permission)
    if user is None or not user.is_authenticated:
        return Club.objects.none()
    if user.is_superuser:
        return Club.objects.all()
    holds = Q(role=Membership.Role.OWNER) | Q(role=Membership.Role.LEADER, **{f"may_{permission}": True})
    held = Membership.objects.filter(holds, user=user).values("club_id")
    return Club.objects.filter(suspended_at__isnull=True, pk__in=held)


def clubs_of(user):
    """The clubs `user` belongs to, by name."""
    if user is None or not user.is_authenticated:
        return Club.objects.none()
    return Club.objects.filter(memberships__user=user).order_by("name")
