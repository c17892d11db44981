"""Web Push through pywebpush, signed with the site's VAPID keys (settings VAPID_*)."""

from __future__ import annotations

import json

from django.conf import settings
from pywebpush import WebPushException, webpush

PUSH_TTL = 15 * 60  # seconds a push service keeps a message for a phone that is off: a table is ready now


class SubscriptionGone(Exception):
    """The push service says the subscription no longer exists (404 or 410)."""


def push_enabled() -> bool:
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY and settings.VAPID_SUBJECT)


def send_push(subscription, payload: dict) -> None:
    """Send one encrypted message; raises on a failure, SubscriptionGone for a dead subscription."""
    try:
        webpush(
            subscription_info={
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            },
            data=json.dumps(payload, ensure_ascii=False),
            vapid_private_key=settings.VAPID_PRIVATE_KEY,
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            ttl=PUSH_TTL,
            timeout=10,
        )
    except WebPushException as exc:
        status = getattr(exc.response, "status_code", None)
        if status in (404, 410):
            raise SubscriptionGone(str(exc)) from exc
        raise
