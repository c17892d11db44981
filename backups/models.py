"""Each backup attempt, kept in the database it copies: the director's status reads the last one."""

from django.db import models
from django.utils import timezone


class BackupRun(models.Model):
    """One attempt to back up the database: where it went, and how it ended."""

    started_at = models.DateTimeField(default=timezone.now, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    ok = models.BooleanField(default=False, help_text="the file was written whole and checked")
    path = models.CharField(max_length=1000, blank=True)
    size = models.BigIntegerField(default=0, help_text="bytes")
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]

    def __str__(self):
        return f"backup {self.started_at:%Y-%m-%d %H:%M} {'ok' if self.ok else 'failed'}"
