"""Signed links that work without signing in: unsubscribing from one kind of mail, and a
player's private calendar feed (django.core.signing with the site's secret key)."""

from __future__ import annotations

from django.core import signing

UNSUBSCRIBE_SALT = "notices.unsubscribe"
CALENDAR_SALT = "notices.calendar"


def unsubscribe_token(user_id: int, kind: str) -> str:
    return signing.dumps({"u": user_id, "k": kind}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token: str) -> tuple[int, str] | None:
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or not isinstance(data.get("k"), str):
        return None
    return data["u"], data["k"]


def calendar_token(user_id: int) -> str:
    # No timestamp: a calendar app subscribes to one address and keeps it, so the
    # player's link must be the same every time the preferences page shows it.
    return signing.Signer(salt=CALENDAR_SALT).sign_object(user_id)


def read_calendar_token(token: str) -> int | None:
    try:
        user_id = signing.Signer(salt=CALENDAR_SALT).unsign_object(token)
    except (signing.BadSignature, ValueError):
        return None
    return user_id if isinstance(user_id, int) else None
