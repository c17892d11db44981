"""The nightly backup by beat keeps the last BACKUP_KEEP files, each attempt recorded; the
director's pages say when the last backup failed, is older than two days, or never was."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from backups import services, tasks
from backups.models import BackupRun
from tests.tournaments.helpers import make_event

pytestmark = pytest.mark.django_db

FAILED = "Последнее резервное копирование базы данных не удалось"
STALE = "Последней резервной копии базы данных больше двух дней"
NEVER = "Резервная копия базы данных ещё ни разу не делалась."


def test_the_nightly_backup_is_a_beat_row_on_the_batch_queue():
    row = PeriodicTask.objects.get(task="backups.tasks.nightly_backup")
    assert row.enabled and row.queue == "batch"
    assert (row.crontab.hour, row.crontab.minute) == ("3", "10")


def test_the_nightly_backup_keeps_the_last_ones(settings, tmp_path, monkeypatch):
    settings.BACKUP_DIR = tmp_path
    settings.BACKUP_KEEP = 3
    made = []

    def backup(connection, target):  # the engine's copy, named for each night
        target.write_bytes(b"copy")
        made.append(target)

    engine = services.engine_for(services.connections["default"])
    monkeypatch.setattr(engine, "backup", backup)
    monkeypatch.setattr(engine, "check", lambda path: None)
    for night in range(5):
        stamp = timezone.now() + timedelta(days=night)
        monkeypatch.setattr(services.timezone, "now", lambda stamp=stamp: stamp)
        tasks.nightly_backup()
    runs = list(BackupRun.objects.order_by("pk"))
    assert len(made) == 5 and all(run.ok for run in runs)
    assert sorted(tmp_path.iterdir()) == sorted(Path(run.path) for run in runs[-3:])


def test_a_failed_backup_is_recorded_and_raised(settings, tmp_path, monkeypatch):
    settings.BACKUP_DIR = tmp_path
    engine = services.engine_for(services.connections["default"])

    def broken(connection, target):
        raise OSError("No space left on device")

    monkeypatch.setattr(engine, "backup", broken)
    with pytest.raises(OSError):
        tasks.nightly_backup()
    run = BackupRun.objects.get()
    assert not run.ok and run.finished_at and "No space left on device" in run.error
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def director_client(client, django_user_model):
    user = django_user_model.objects.create_user(username="director", is_staff=True)
    user.groups.add(Group.objects.get(name="Tournament directors"))
    client.force_login(user)
    return client


def pages(client):
    event = make_event()
    return [
        client.get("/tournaments/direct/").content.decode(),
        client.get(f"/tournaments/{event.pk}/direct/").content.decode(),
    ]


def test_the_directors_pages_say_when_the_last_backup_failed(director_client):
    now = timezone.now()
    BackupRun.objects.create(started_at=now - timedelta(days=1), finished_at=now - timedelta(days=1), ok=True)
    BackupRun.objects.create(started_at=now, finished_at=now, error="OSError: No space left on device")
    for page in pages(director_client):
        assert FAILED in page and "No space left on device" in page


def test_the_directors_pages_say_when_the_last_backup_is_older_than_two_days(director_client):
    old = timezone.now() - timedelta(days=2, hours=1)
    BackupRun.objects.create(started_at=old, finished_at=old, ok=True)
    for page in pages(director_client):
        assert STALE in page


def test_the_directors_pages_say_when_there_was_never_a_backup(director_client):
    for page in pages(director_client):
        assert NEVER in page


def test_a_recent_good_backup_says_nothing(director_client):
    now = timezone.now() - timedelta(hours=20)
    BackupRun.objects.create(started_at=now, finished_at=now, ok=True)
    for page in pages(director_client):
        assert "backup-status" not in page
