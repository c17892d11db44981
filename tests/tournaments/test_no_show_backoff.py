"""A failing no-show step backs off like the event's own steps (issue 15, "Absence is a
result"; seen: `do_forfeit_no_shows` failing logged a traceback at every 5-second sweep).

It is a StuckStep of its own kind: logged once, tried again after a growing pause,
shown to the director, and cleared once it succeeds."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game
from tournaments import absence, services, tasks
from tournaments.models import RoundTable, StuckStep

from .helpers import latest_game, make_event, make_users
from .test_absence import start

pytestmark = pytest.mark.django_db

NOTICE = "Шаг события раз за разом не удаётся"


def failure_lines(caplog):
    return [r for r in caplog.records if r.name.startswith("tournaments") and r.levelno >= logging.WARNING]


def test_a_failing_no_show_forfeit_is_logged_once_backs_off_and_is_shown(monkeypatch, caplog, client, director):
    anna, boris = make_users(2, prefix="ns")
    event = make_event(table_size=2, rounds=1)
    start(event, [anna, boris])
    rt = RoundTable.objects.get(round__tournament=event)
    game = latest_game(rt.table_id)
    Game.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(minutes=5))  # nobody came

    def broken(**kw):
        raise RuntimeError("the forfeit cannot be written")

    monkeypatch.setattr(absence.adjudication, "do_forfeit_game", broken)
    caplog.set_level(logging.INFO)
    clock = [timezone.now()]
    monkeypatch.setattr(timezone, "now", lambda: clock[0])
    for _ in range(100):  # 100 sweeps, 5 seconds apart
        tasks.sweep_events()
        clock[0] += timedelta(seconds=5)
    assert len(failure_lines(caplog)) == 1, "logged once, not at every sweep"
    stuck = StuckStep.objects.get(tournament=event)
    assert stuck.step == StuckStep.Step.NO_SHOW and stuck.round_table_id == rt.pk
    assert 1 < stuck.failures < 10, "retried after a growing pause, not 100 times"
    assert stuck.next_attempt_at - stuck.last_failed_at == services.retry_pause(stuck.failures)
    client.force_login(director)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert page.count(NOTICE) == 1 and "присуждение поражения за неявку" in page
    # The cause is gone: the next attempt forfeits the game and the notice goes.
    monkeypatch.undo()
    StuckStep.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    game.refresh_from_db()
    assert game.is_over and game.result["ended"]["reason"] == "forfeit"
    assert not StuckStep.objects.exists()
    assert len(failure_lines(caplog)) == 1
