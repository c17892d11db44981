"""Issue 18, point 4: sending is idempotent (a `Sent` row per kind, object, recipient and channel):
a repeated round start, a repeated task or two workers at once send nothing twice."""

from __future__ import annotations

import pytest
from django.core import mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from notices import services as notice_services
from notices import tasks as notice_tasks
from notices.models import Sent
from tournaments import services, tasks
from tournaments.models import Round

from .helpers import make_event, players, register_all, start

pytestmark = pytest.mark.django_db


def test_issue18_a_repeated_round_start_sends_nothing_twice(run_at_once, django_capture_on_commit_callbacks):
    users = players(8)
    event = make_event(rounds=2)
    with django_capture_on_commit_callbacks(execute=True):
        register_all(event, users)
    registrations = len(mail.outbox)
    assert registrations == 8
    with django_capture_on_commit_callbacks(execute=True):
        start(event)
        services.do_start_round(tournament_id=event.pk, number=1)  # a repeat
        tasks.sweep_events()
        tasks.advance_event(event.pk)
    round_ = Round.objects.get(tournament=event, number=1)
    notice_tasks.send_notice("round", round_.pk)  # a repeated message of the task itself
    round_mails = mail.outbox[registrations:]
    assert len(round_mails) == 8
    assert len({m.to[0] for m in round_mails}) == 8
    assert Sent.objects.filter(kind="round").count() == 8


def test_issue18_a_message_being_sent_by_another_worker_is_not_sent_again():
    (user,) = players(1)
    event = make_event()
    entrant = services.do_register(tournament_id=event.pk, user=user)
    Sent.objects.create(
        kind="registration",
        object_key=f"entrant:{entrant.pk}",
        recipient=user,
        channel="email",
        claimed_at=timezone.now(),
    )
    assert notice_services.deliver("registration", entrant.pk) == []
    assert mail.outbox == []
    Sent.objects.update(claimed_at=None)
    notice_services.deliver("registration", entrant.pk)
    assert len(mail.outbox) == 1


def test_issue18_the_database_refuses_a_second_row_of_one_message():
    (user,) = players(1)
    Sent.objects.create(kind="round", object_key="round:1", recipient=user, channel="email")
    with pytest.raises(IntegrityError), transaction.atomic():
        Sent.objects.create(kind="round", object_key="round:1", recipient=user, channel="email")


def test_issue18_a_lost_broker_never_stops_the_round(monkeypatch, django_capture_on_commit_callbacks):
    def broker_down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(notice_tasks.send_notice, "apply_async", broker_down)
    users = players(4)
    event = make_event(rounds=1)
    with django_capture_on_commit_callbacks(execute=True):
        register_all(event, users)
        start(event)
    assert Round.objects.get(tournament=event).status == Round.Status.PLAYING
    assert mail.outbox == []
