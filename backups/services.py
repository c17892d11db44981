"""Writes of the backups app: a backup (each attempt a `BackupRun` row), the nightly one with
its retention, and a restore that refuses a bad file or a database holding data."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from django.conf import settings
from django.db import connections
from django.utils import timezone
from django.utils.translation import gettext as _

from .engines import BackupRefused, engine_for, holds_data
from .models import BackupRun

log = logging.getLogger(__name__)

PREFIX = "durak-"

__all__ = ["BackupRefused", "default_folder", "do_backup", "do_nightly_backup", "do_restore", "prune"]


def default_folder() -> Path:
    return Path(settings.BACKUP_DIR)


def _target(path: Path | None, suffix: str) -> Path:
    """A file named by the time in `path` when it is a folder (or the default folder), else `path`."""
    path = Path(path) if path else default_folder()
    if path.is_dir() or not path.suffix:
        path.mkdir(parents=True, exist_ok=True)
        return path / f"{PREFIX}{timezone.now():%Y%m%d-%H%M%S}{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def do_backup(path=None, *, using: str = "default") -> BackupRun:
    """Copy the database to `path` (a file, or a folder for a file named by the time), written
    beside it first and renamed when whole, so a file of that name is always a whole backup.
    Records the attempt; raises on a failure after recording it."""
    connection = connections[using]
    engine = engine_for(connection)
    target = _target(path, engine.suffix)
    run = BackupRun.objects.using(using).create(path=str(target))
    partial = target.with_name(f".{target.name}.partial")
    try:
        engine.backup(connection, partial)
        engine.check(partial)
        os.replace(partial, target)
    except Exception as exc:
        partial.unlink(missing_ok=True)
        BackupRun.objects.using(using).filter(pk=run.pk).update(
            finished_at=timezone.now(), error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    BackupRun.objects.using(using).filter(pk=run.pk).update(
        finished_at=timezone.now(), ok=True, size=target.stat().st_size
    )
    run.refresh_from_db()
    return run


def prune(folder: Path, suffix: str, keep: int) -> list[Path]:
    """Delete all but the newest `keep` backups the schedule wrote in `folder`; returns the deleted."""
    made = sorted(folder.glob(f"{PREFIX}*{suffix}"))
    gone = made[: max(len(made) - keep, 0)]
    for path in gone:
        path.unlink()
    return gone


def do_nightly_backup(*, using: str = "default") -> BackupRun:
    """The schedule's backup into the host's folder (BACKUP_DIR), keeping the last BACKUP_KEEP."""
    run = do_backup(default_folder(), using=using)
    gone = prune(default_folder(), engine_for(connections[using]).suffix, settings.BACKUP_KEEP)
    if gone:
        log.info("backups: removed %s old backups", len(gone))
    return run


def do_restore(path, *, replace: bool = False, using: str = "default") -> None:
    """Put the backup at `path` in place of the database's contents. Refuses, writing nothing,
    a file that is not a whole backup of this site, and a database that holds data unless
    `replace`."""
    path = Path(path)
    if not path.is_file():
        raise BackupRefused(_("There is no backup file at %(path)s.") % {"path": path})
    connection = connections[using]
    engine = engine_for(connection)
    engine.check(path)
    if holds_data(connection) and not replace:
        raise BackupRefused(
            _("This database already holds data; nothing was restored. Add --replace to put the backup in its place.")
        )
    engine.restore(connection, path)
