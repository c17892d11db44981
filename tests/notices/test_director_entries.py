"""Issue 18, point 4: an entry the director makes (a late entrant, a reinstated one) confirms the
registration by mail just as a self-registration does."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core import mail

from notices import tasks as notice_tasks
from tournaments import services

from .helpers import make_event, players, register_all, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def director(django_user_model):
    user = django_user_model.objects.create_user(username="director", is_staff=True)
    user.groups.add(Group.objects.get(name="Tournament directors"))
    return user


def run(enqueued):
    for args, queue in list(enqueued):
        assert queue == "batch"
        notice_tasks.send_notice(*args)
    enqueued.clear()


def test_issue18_a_late_entrant_added_by_the_director_gets_registration_confirmed(
    director, enqueued, django_capture_on_commit_callbacks
):
    users = players(5)
    event = make_event(rounds=2)
    register_all(event, users[:4])  # their on-commit callbacks never run here: no mail for them
    start(event)
    with django_capture_on_commit_callbacks(execute=True):
        late = services.do_add_late_entrant(tournament_id=event.pk, by=director, user=users[4])
    assert (["registration", late.pk], "batch") in enqueued
    run(enqueued)
    (message,) = mail.outbox
    assert message.to == ["p05@mail.example"]
    assert message.subject == "Вы записаны на «Вечерний швейцарец»"


def test_issue18_a_reinstated_entrant_gets_registration_confirmed_once(
    director, enqueued, django_capture_on_commit_callbacks
):
    users = players(4)
    event = make_event(rounds=2)
    entries = register_all(event, users)  # no on-commit callbacks run: nothing confirmed yet
    services.do_withdraw(tournament_id=event.pk, entrant_id=entries[0].pk, by=director)
    with django_capture_on_commit_callbacks(execute=True):
        services.do_reinstate(tournament_id=event.pk, entrant_id=entries[0].pk, by=director)
    assert enqueued == [(["registration", entries[0].pk], "batch")]
    run(enqueued)
    (message,) = mail.outbox
    assert message.to == ["p01@mail.example"]
    assert message.subject == "Вы записаны на «Вечерний швейцарец»"

    # withdrawn and reinstated again: the place was already confirmed, no second mail
    services.do_withdraw(tournament_id=event.pk, entrant_id=entries[0].pk, by=director)
    with django_capture_on_commit_callbacks(execute=True):
        services.do_reinstate(tournament_id=event.pk, entrant_id=entries[0].pk, by=director)
    run(enqueued)
    assert len(mail.outbox) == 1
