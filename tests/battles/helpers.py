"""Clubs, leaders and members for the battle tests, built by the clubs app's own services."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from battles import services
from clubs.services import do_appoint_leader, do_found_club, do_join


def user(name: str):
    return get_user_model().objects.create_user(username=name)


def club_with(slug: str, members: int):
    """A club founded by `<slug>-owner` (who runs its events) with `members` more members."""
    owner = user(f"{slug}-owner")
    club = do_found_club(owner, name=f"Клуб {slug}", slug=slug)
    people = [owner]
    for i in range(members):
        person = user(f"{slug}-{i:02d}")
        do_join(person, club)
        people.append(person)
    return club, owner, people


def leader_of(club, owner, name: str):
    person = user(name)
    do_join(person, club)
    do_appoint_leader(owner, club, person, permissions=("run_events",))
    return person


def make_battle(organiser, owner, invited, *, format="arena", pairs=False, table_size=4, top_k=3, **kw):
    return services.do_create_battle(
        owner,
        club=organiser,
        name="Битва клубов",
        variant="podkidnoy",
        format=format,
        pairs=pairs,
        table_size=table_size,
        top_k=top_k,
        starts_at=timezone.now() + timedelta(hours=1),
        invited=invited,
        arena_minutes=30,
        rounds=3,
        **kw,
    )
