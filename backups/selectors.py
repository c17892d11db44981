"""Reads of the backups app: is the last backup recent and whole?"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from .models import BackupRun

# Older than this, the last good backup is a warning on the director's page (a nightly one
# missed twice).
STALE_AFTER = timedelta(days=2)


def backup_problem(now=None) -> dict | None:
    """What the director should hear about the backups, or None when the last one is good and recent:
    {"failed": run} (the last attempt failed), {"stale": run} (the last good one is older than
    two days) or {"never": True}."""
    now = now or timezone.now()
    last = BackupRun.objects.filter(finished_at__isnull=False).first()
    if last is not None and not last.ok:
        return {"failed": last}
    if last is None:
        return {"never": True}
    if last.finished_at < now - STALE_AFTER:
        return {"stale": last}
    return None
