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
    return signing.dumps(user_id, salt=CALENDAR_SALT)


def read_calendar_token(token: str) -> int | None:
    try:
        user_id = signing.loads(token, salt=CALENDAR_SALT)
    except signing.BadSignature:
        return None
    return user_id if isinstance(user_id, int) else None
