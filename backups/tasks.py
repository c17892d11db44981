"""Celery tasks: thin; sent by beat on the batch queue."""

from celery import shared_task

from backups import services


@shared_task(name="backups.tasks.nightly_backup", ignore_result=True)
def nightly_backup() -> int:
    """Beat, every night: back up the database into BACKUP_DIR, keeping the last BACKUP_KEEP."""
    return services.do_nightly_backup().pk
