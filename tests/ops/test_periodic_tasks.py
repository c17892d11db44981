"""Issue 21, "one place for each idea": the periodic tasks are declared once.

Each app's data migration creates its rows in django-celery-beat's database
scheduler; nothing in the settings declares them again, and starting beat
(the scheduler's set-up, as `celery beat` and the embedded mode run it)
leaves a row as the admin edited it.
"""

from __future__ import annotations

import importlib
import json
from datetime import timedelta

import pytest
from django.conf import settings
from django_celery_beat.models import IntervalSchedule, PeriodicTask
from django_celery_beat.schedulers import DatabaseScheduler

from durak_site.celery import app
from games.engine.rules import VARIANTS

SITE_TASKS = (
    "games.tasks.sweep_due_games",
    "games.tasks.housekeeping",
    "ratings.tasks.recompute",
    "ratings.tasks.sweep_unrated",
    "tournaments.tasks.sweep_events",
    "reviews.tasks.sweep_reviews",
    "backups.tasks.nightly_backup",
)
PER_VARIANT = {"ratings.tasks.recompute", "ratings.tasks.sweep_unrated"}
EDITABLE = ("task", "interval_id", "crontab_id", "args", "queue", "expire_seconds", "enabled")


def site_rows():
    return PeriodicTask.objects.filter(task__in=SITE_TASKS).order_by("name")


@pytest.mark.django_db
def test_issue21_each_periodic_task_of_the_site_has_its_row_after_migrate():
    rows = list(site_rows())
    for task in SITE_TASKS:
        found = [row for row in rows if row.task == task and row.enabled]
        if task in PER_VARIANT:
            assert sorted(json.loads(row.args)[0] for row in found) == sorted(VARIANTS), task
        else:
            assert len(found) == 1, task
    (sweep,) = [row for row in rows if row.task == "games.tasks.sweep_due_games"]
    assert (sweep.interval.every, sweep.interval.period) == (1, IntervalSchedule.SECONDS)
    assert (sweep.queue, sweep.expire_seconds) == ("default", 10)


def test_issue21_the_settings_declare_no_periodic_task():
    assert not hasattr(settings, "CELERY_BEAT_SCHEDULE")
    assert app.conf.beat_schedule == {}
    assert settings.CELERY_BEAT_SCHEDULER == "django_celery_beat.schedulers:DatabaseScheduler"


# Beat closes connections it thinks stale (close_old_connections), as a worker does; inside
# the test's transaction that would close the test's own connection on PostgreSQL. The
# connection housekeeping is not what this test checks, so it is switched off here, and
# the test keeps its transaction (a flush would drop the migrations' rows for later tests).
@pytest.mark.django_db
def test_issue21_starting_beat_keeps_every_row_as_the_admin_left_it(monkeypatch):
    import django_celery_beat.schedulers

    monkeypatch.setattr(django_celery_beat.schedulers, "close_old_connections", lambda: None)
    slower, _ = IntervalSchedule.objects.get_or_create(every=7, period=IntervalSchedule.SECONDS)
    for row in site_rows():
        if row.interval_id is not None:
            row.interval = slower
        row.queue = "edited"
        row.expire_seconds = 3
        row.save()
    edited = {row.name: [getattr(row, name) for name in EDITABLE] for row in site_rows()}
    assert len(edited) >= len(SITE_TASKS)

    scheduler = DatabaseScheduler(app=app)  # what beat runs at start (setup_schedule)
    schedule = scheduler.schedule

    assert {row.name: [getattr(row, name) for name in EDITABLE] for row in site_rows()} == edited
    sweep = next(entry for entry in schedule.values() if entry.task == "games.tasks.sweep_due_games")
    assert sweep.schedule.run_every == timedelta(seconds=7)
    assert sweep.options["queue"] == "edited"


@pytest.mark.django_db
def test_issue21_the_row_the_former_settings_entry_left_is_kept_with_its_edits():
    from django.apps import apps

    migration = importlib.import_module("games.migrations.0008_sweep_due_games_schedule")
    PeriodicTask.objects.filter(name=migration.SWEEP_NAME).delete()
    every_five, _ = IntervalSchedule.objects.get_or_create(every=5, period=IntervalSchedule.SECONDS)
    PeriodicTask.objects.create(name=migration.FORMER_NAME, task=migration.SWEEP_TASK, interval=every_five)

    migration.register_sweep(apps, None)

    (row,) = PeriodicTask.objects.filter(task=migration.SWEEP_TASK)
    assert (row.name, row.interval.every) == (migration.SWEEP_NAME, 5)
