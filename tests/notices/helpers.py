"""Helpers for the notices tests: players who chose their notices, events that run."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from notices import services as notice_services
from tests.tournaments.helpers import make_event, make_users
from tournaments import services, tasks
from tournaments.models import Tournament

ALL_KINDS = ["registration", "checkin", "round", "final"]


def players(count: int, prefix: str = "p", *, email=ALL_KINDS, push=(), language: str = "ru") -> list:
    users = make_users(count, prefix)
    for user in users:
        user.email = f"{user.username}@mail.example"
        user.save(update_fields=["email"])
        notice_services.do_save_preferences(user=user, email_kinds=email, push_kinds=push, language=language)
    return users


def register_all(event, users):
    return [services.do_register(tournament_id=event.pk, user=u) for u in users]


def start(event):
    """The start time has come: the beat sweep starts round one."""
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    event.refresh_from_db()


__all__ = ["ALL_KINDS", "make_event", "players", "register_all", "start"]
