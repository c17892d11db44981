"""The final-standings mail after a correction: an event reopened and finished again sends the
corrected standings to those whose place or points changed, each correction's mail once."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group
from django.core import mail

from notices import tasks as notice_tasks
from tournaments import services
from tournaments.models import Entrant, Result, RoundTable, Tournament

from .helpers import make_event, players, register_all, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def director(django_user_model):
    user = django_user_model.objects.create_user(username="director", is_staff=True)
    user.groups.add(Group.objects.get(name="Tournament directors"))
    return user


def run(enqueued):
    for args, _queue in list(enqueued):
        notice_tasks.send_notice(*args)
    enqueued.clear()


def finals(outbox) -> dict:
    return {m.to[0]: m for m in outbox if "итоговая" in m.subject}


def told(message) -> tuple[int, str]:
    found = re.search(r"Ваше место: (\d+), очки: ([\d,]+)\.", message.body)
    assert found, message.body
    return int(found.group(1)), found.group(2)


def test_a_correction_after_the_end_mails_the_corrected_standings_to_those_it_moved(
    director, enqueued, django_capture_on_commit_callbacks
):
    from tests.tournaments.helpers import play_round

    users = players(4, "c")
    event = make_event(rounds=1)
    register_all(event, users)
    start(event)
    with django_capture_on_commit_callbacks(execute=True):
        play_round(event, 1)
    run(enqueued)
    first = finals(mail.outbox)
    assert len(first) == 4
    mail.outbox.clear()

    rt = RoundTable.objects.get(round__tournament=event)
    places = {r.entrant_id: r.place for r in Result.objects.filter(round_table=rt, game_number=1)}
    best, worst = min(places, key=places.get), max(places, key=places.get)
    swapped = {**places, best: places[worst], worst: places[best]}
    with django_capture_on_commit_callbacks(execute=True):
        services.do_reopen_event(tournament_id=event.pk, by=director, reason="итог записан неверно")
        services.do_correct_places(
            tournament_id=event.pk,
            round_table_id=rt.pk,
            game_number=1,
            places=swapped,
            by=director,
            reason="итог записан неверно",
        )
        services.do_finish_event(tournament_id=event.pk, by=director, reason="исправлено")
    assert Tournament.objects.get(pk=event.pk).status == Tournament.Status.FINISHED
    run(enqueued)
    corrected = finals(mail.outbox)
    moved = {Entrant.objects.get(pk=pk).user.email for pk in (best, worst)}
    assert set(corrected) == moved, "only those whose place or points changed hear of it"
    for address, message in corrected.items():
        assert message.subject == "«Вечерний швейцарец»: исправленная итоговая таблица"
        assert "Директор исправил итоги турнира «Вечерний швейцарец»." in message.body
        was_place, was_points = told(first[address])
        assert f"Раньше: место {was_place}, очки {was_points}." in message.body
        assert told(message) != (was_place, was_points)
        assert "Исправленная итоговая таблица</h2>" in message.alternatives[0][0]

    # Each correction's mail once: the task run again (a retry) sends nothing more.
    mail.outbox.clear()
    notice_tasks.send_notice("final", event.pk)
    assert mail.outbox == []
    # Reopened and finished again with nothing changed: no one is told anything.
    with django_capture_on_commit_callbacks(execute=True):
        services.do_reopen_event(tournament_id=event.pk, by=director, reason="проверка")
        services.do_finish_event(tournament_id=event.pk, by=director, reason="без изменений")
    run(enqueued)
    assert mail.outbox == []
