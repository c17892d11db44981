"""Sending notices, on the batch queue (a mail server may take seconds; never in front of a bot move).

Each task is idempotent (`services.deliver` sends each message once); a failed
provider is retried with a growing pause, and the messages already sent are not sent again.
"""

from __future__ import annotations

import logging

from celery import shared_task

from . import services

log = logging.getLogger(__name__)

RETRY_FIRST_SECONDS = 60
MAX_RETRIES = 8  # about four hours of retries in all


@shared_task(bind=True, max_retries=MAX_RETRIES, acks_late=True)
def send_notice(self, kind: str, object_id: int) -> int:
    failures = services.deliver(kind, object_id)
    if failures:
        log.warning("notice %s %s: %d failed, retrying later", kind, object_id, len(failures))
        raise self.retry(countdown=RETRY_FIRST_SECONDS * 2**self.request.retries)
    return 0
