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
    PAIR_INVITE_RATE = (10, 3600)      pair invitations one user may send per hour
    MAIL_LINK_RATE = (5, 3600)         confirmation links one user, or password resets one
                                       address, may ask for per hour (someone else's mailbox
                                       is not to be flooded)

"Play now" with bots (games.services.matchmaking) counts against MAX_WAITING_TABLES
and TABLE_CREATE_RATE like a table opened in the lobby.

Open websockets (durak_site.sockets refuses a handshake past a cap; 0: no cap):

    SOCKETS_PER_USER = 30              open sockets of one signed-in user (guests too)
    SOCKETS_PER_ADDRESS = 120          open sockets from one address
    SOCKET_LEASE_SECONDS = 60          how often a live socket renews its place

They are counted in the cache too (`SocketLease`): a socket holds a place in the
count of the current window of SOCKET_LEASE_SECONDS and moves it to each next
window while it lives, so the count of the current and the previous window is
every live socket exactly once, and the places of a process that died vanish
within two windows instead of leaking for ever.
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
    "PAIR_INVITE_RATE": (10, 3600),
    "MAIL_LINK_RATE": (5, 3600),
    "SOCKETS_PER_USER": 30,
    "SOCKETS_PER_ADDRESS": 120,
    "SOCKET_LEASE_SECONDS": 60,
}


class LimitRefused(Refusal):
    """Too many of something for one person or address."""


def setting(name: str):
    return getattr(settings, name, DEFAULTS[name])


def _who(who) -> str:
    return hashlib.sha256(str(who).encode("utf-8", "replace")).hexdigest()[:32]


def hit(scope: str, who, rate: tuple[int, int]) -> bool:
    """Count one use of `scope` by `who` (a user id or an address); False when the
    rate (at most `count` per `seconds`, in fixed windows) is already used up."""
    count, seconds = rate
    if count <= 0:
        return False
    window = int(time.time() // seconds)
    key = f"limit:{scope}:{_who(who)}:{window}"
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


def check_confirmation_rate(user) -> None:
    if not hit("confirm-mail", user.pk, setting("MAIL_LINK_RATE")):
        raise LimitRefused(_("Too many confirmation links asked for: try again in an hour."))


def check_password_reset_rate(request) -> None:
    # Counted per address whatever the address typed: the answer says nothing of accounts.
    if not hit("password-reset", client_address(request), setting("MAIL_LINK_RATE")):
        raise LimitRefused(_("Too many password resets from your address: try again in an hour."))


class SocketLease:
    """One open socket's place in the counts of its owners: ("user", id) and ("address", ip),
    each with its cap (0: not counted). `take()` returns the kind of the first full
    count (nothing is kept then), or "" when the socket may stay; `renew()` moves the
    places to the current window (call it once per window); `release()` gives them back.
    The caller handles the cache's errors (an unreachable Redis raises)."""

    def __init__(self, owners: list[tuple[str, object, int]], seconds: int | None = None):
        self.owners = [(kind, _who(who), cap) for kind, who, cap in owners if cap > 0]
        self.seconds = max(int(seconds or setting("SOCKET_LEASE_SECONDS")), 1)
        self.window: int | None = None

    def current_window(self) -> int:
        return int(time.time() // self.seconds)

    def _key(self, kind: str, who: str, window: int) -> str:
        return f"sockets:{kind}:{who}:{window}"

    def _add(self, kind: str, who: str, window: int) -> int:
        key = self._key(kind, who, window)
        cache.add(key, 0, timeout=3 * self.seconds)
        try:
            return cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=3 * self.seconds)
            return 1

    def _remove(self, kind: str, who: str, window: int) -> None:
        try:
            cache.decr(self._key(kind, who, window))
        except ValueError:  # its window has expired: nothing to give back
            pass

    def take(self) -> str:
        window = self.current_window()
        taken = []
        for kind, who, cap in self.owners:
            used = self._add(kind, who, window) + (cache.get(self._key(kind, who, window - 1)) or 0)
            taken.append((kind, who))
            if used > cap:
                for kind_taken, who_taken in taken:
                    self._remove(kind_taken, who_taken, window)
                return kind
        self.window = window
        return ""

    def renew(self) -> None:
        window = self.current_window()
        if self.window is None or window == self.window:
            return
        for kind, who, _cap in self.owners:
            self._add(kind, who, window)
            self._remove(kind, who, self.window)
        self.window = window

    def release(self) -> None:
        if self.window is None:
            return
        window, self.window = self.window, None
        for kind, who, _cap in self.owners:
            self._remove(kind, who, window)

    def seconds_to_next_window(self) -> float:
        return self.seconds - time.time() % self.seconds
