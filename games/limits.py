"""Limits per person: how often one user or one address may open tables, become a
guest or sign up, and how many waiting tables one player may hold.

Rates are counted in Django's cache (one counter per key and window: with the
default local-memory cache per process, with Redis or Memcached for the whole
site), so a limit costs no database write. The chat keeps its own exact limit
(`games.services.chat`). Every number is a setting with the default below:

    MAX_WAITING_TABLES = 3             waiting tables a user or guest may host at once
    TABLE_CREATE_RATE = (10, 600)      tables one user may open per 600 s
    GUEST_CREATE_RATE = (10, 3600)     guest accounts per address per hour
    SIGNUP_RATE = (5, 3600)            sign-ups per address per hour
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext_lazy as _

from games.errors import Refusal

DEFAULTS = {
    "MAX_WAITING_TABLES": 3,
    "TABLE_CREATE_RATE": (10, 600),
    "GUEST_CREATE_RATE": (10, 3600),
    "SIGNUP_RATE": (5, 3600),
}


class LimitRefused(Refusal):
    """Too many of something for one person or address."""


def setting(name: str):
    return getattr(settings, name, DEFAULTS[name])


def hit(scope: str, who, rate: tuple[int, int]) -> bool:
    """Count one use of `scope` by `who` (a user id or an address); False when the
    rate (at most `count` per `seconds`, in fixed windows) is already used up."""
    count, seconds = rate
    if count <= 0:
        return False
    window = int(time.time() // seconds)
    who_key = hashlib.sha256(str(who).encode("utf-8", "replace")).hexdigest()[:32]
    key = f"limit:{scope}:{who_key}:{window}"
    cache.add(key, 0, timeout=seconds + 1)
    try:
        used = cache.incr(key)
    except ValueError:  # expired between add and incr: a fresh window
        cache.add(key, 1, timeout=seconds + 1)
        used = 1
    return used <= count


def client_address(request) -> str:
    """The address a request came from (the server's REMOTE_ADDR: a proxy in front
    sets it, e.g. daphne --proxy-headers; the client cannot)."""
    return request.META.get("REMOTE_ADDR") or "unknown"


def check_table_rate(user) -> None:
    if not hit("table", user.pk, setting("TABLE_CREATE_RATE")):
        raise LimitRefused(_("You are opening tables too fast: wait a few minutes."))


def check_guest_rate(request) -> None:
    if not hit("guest", client_address(request), setting("GUEST_CREATE_RATE")):
        raise LimitRefused(_("Too many guests from your address: try again later, or sign up."))


def check_signup_rate(request) -> None:
    if not hit("signup", client_address(request), setting("SIGNUP_RATE")):
        raise LimitRefused(_("Too many sign-ups from your address: try again later."))
