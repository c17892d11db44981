"""The "play now" queue: it seats people who want the same kind of game together.

A person picks a variant, a table size and (at 4 or 6) partners, and waits. The
database is the truth: each person has one `QueueEntry` row. Matching takes the
kind's turn (an advisory lock per kind on PostgreSQL; SQLite serialises writers),
locks the kind's waiting rows (`select_for_update`, in primary-key order) and
seats the first arrivals at a new table, dealt at once, with a turn timer so
nobody can stall it. Matching runs
whenever somebody joins or their page asks how the wait goes (every couple of
seconds), so two people who press at the same moment are seated together at
the latest on the next ask, and a periodic sweep (`do_sweep_queue`) does the
same for everybody: all of it is idempotent.

A waiting page that stops asking (the person closed it) makes its row stale
after `STALE_SECONDS`: it is never matched, and the sweep marks it left. After
`BOTS_AFTER_SECONDS` the page offers to fill the table with bots (an unrated
game: bots never sit at rated tables). Guests may queue for unrated games.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from games import bots, engine, limits
from games.errors import TableRefused
from games.models import QueueEntry, Table

from .tables import DEFAULT_PUBLIC_TURN_SECONDS, do_create_table, is_guest

STALE_SECONDS = 20  # the waiting page asks every 2 s; silent this long: the person has gone
BOTS_AFTER_SECONDS = 20  # after this wait the page offers to fill the table with bots
TURN_SECONDS = DEFAULT_PUBLIC_TURN_SECONDS  # a table of strangers always has a turn timer (T7)
POLL_SECONDS = 2
DEFAULT_BOT_LEVEL = "heuristic"
VARIANTS = engine.VARIANTS


class QueueRefused(TableRefused):
    """A queue request that is refused: nothing changes."""


@dataclass(frozen=True)
class Wish:
    """The kind of game a person waits for."""

    variant: str
    players: int
    partners: bool = False
    rated: bool = False

    def rules(self) -> engine.Rules:
        return engine.Rules(variant=self.variant, players=self.players, partners=self.partners)

    def matches(self):
        return {"variant": self.variant, "players": self.players, "partners": self.partners, "rated": self.rated}


def check_wish(*, variant, players, partners=False, rated=False, user=None) -> Wish:
    """The wish, or QueueRefused saying what is wrong with it."""
    if variant not in VARIANTS:
        raise QueueRefused(_("Choose podkidnoy or perevodnoy."))
    try:
        players = int(players)
    except (TypeError, ValueError):
        raise QueueRefused(_("Choose a table of 2 to 6 players.")) from None
    if not 2 <= players <= 6:
        raise QueueRefused(_("Choose a table of 2 to 6 players."))
    partners = bool(partners)
    if partners and players not in (4, 6):
        raise QueueRefused(_("Partners play at 4 (two pairs) or 6 (two teams of three)."))
    rated = bool(rated)
    if rated and user is not None and is_guest(user):
        raise QueueRefused(_("Rated play needs an account: sign up first."))
    return Wish(variant=variant, players=players, partners=partners, rated=rated)


def wish_of(entry: QueueEntry) -> Wish:
    return Wish(variant=entry.variant, players=entry.players, partners=entry.partners, rated=entry.rated)


def do_join_queue(*, user, variant, players, partners=False, rated=False, now=None) -> QueueEntry:
    """Wait for a game of this kind (a new wish replaces the person's old one); seated at
    once when enough people wait for the same."""
    if user is None or not user.is_authenticated:
        raise QueueRefused(_("Sign in or play as a guest to join the queue."))
    wish = check_wish(variant=variant, players=players, partners=partners, rated=rated, user=user)
    now = now or timezone.now()
    with transaction.atomic():
        _lock_kind(wish, user)
        entry, _created = QueueEntry.objects.update_or_create(
            user=user,
            defaults={
                **wish.matches(),
                "status": QueueEntry.Status.WAITING,
                "created_at": now,
                "seen_at": now,
                "table": None,
            },
        )
        _match(wish, now)
        entry.refresh_from_db()
        return entry


def do_poll_queue(*, user, now=None) -> QueueEntry | None:
    """The waiting page asks: the person is still here; seat him if he can be. Returns his
    row (status MATCHED with its table once seated), or None if he is not in the queue."""
    if user is None or not user.is_authenticated:
        return None
    now = now or timezone.now()
    with transaction.atomic():
        entry = QueueEntry.objects.filter(user=user).first()
        if entry is None or entry.status != QueueEntry.Status.WAITING:
            return entry
        wish = wish_of(entry)
        _lock_kind(wish, user)
        entry.refresh_from_db()
        if entry.status != QueueEntry.Status.WAITING:  # seated by somebody else's matching meanwhile
            return entry
        entry.seen_at = now
        entry.save(update_fields=["seen_at"])
        _match(wish, now)
        entry.refresh_from_db()
        return entry


def do_leave_queue(*, user) -> None:
    """Stop waiting (nothing happens if he was not waiting)."""
    if user is None or not user.is_authenticated:
        return
    with transaction.atomic():
        QueueEntry.objects.filter(user=user, status=QueueEntry.Status.WAITING).update(status=QueueEntry.Status.LEFT)


def do_fill_with_bots(*, user, bot_level: str = DEFAULT_BOT_LEVEL, now=None) -> Table:
    """After the wait: a table for the people waiting for the same (this person first),
    bots of `bot_level` in the other seats, dealt at once. Bots make it unrated."""
    if not _known_level(bot_level):
        raise QueueRefused(_("There is no bot level “%(level)s”."), level=bot_level)
    now = now or timezone.now()
    with transaction.atomic():
        entry = QueueEntry.objects.filter(user=user).first() if user is not None else None
        if entry is None or entry.status != QueueEntry.Status.WAITING:
            raise QueueRefused(_("You are not waiting in the queue."))
        wish = wish_of(entry)
        waiting = _lock_kind(wish, user)
        entry = next(e for e in waiting if e.user_id == user.pk)
        if entry.status != QueueEntry.Status.WAITING:
            raise QueueRefused(_("You are not waiting in the queue."))
        if (now - entry.created_at).total_seconds() < BOTS_AFTER_SECONDS:
            raise QueueRefused(_("Wait a little longer: people may still come."))
        others = [e for e in _fresh(waiting, now) if e.user_id != user.pk][: wish.players - 1]
        group = [entry, *others]
        # A table dealt at once with bots is a table he opens: the same limits as the lobby's.
        _check_bot_tables(user)
        limits.check_table_rate(user)
        table = do_create_table(
            rules=wish.rules(),
            host=user,
            turn_seconds=TURN_SECONDS,
            rated=False,
            bot_level=bot_level,
            seat_users=[e.user for e in group],
            bot_seats=dict.fromkeys(range(len(group), wish.players), bot_level),
            start=True,
        )
        _seat(group, table)
        return table


def do_sweep_queue(*, now=None) -> int:
    """The periodic sweep: match every kind of game people wait for, and mark the rows of
    people who have gone as left. Idempotent; returns the number of tables opened."""
    now = now or timezone.now()
    opened = 0
    with transaction.atomic():
        QueueEntry.objects.filter(
            status=QueueEntry.Status.WAITING, seen_at__lt=now - timedelta(seconds=STALE_SECONDS)
        ).update(status=QueueEntry.Status.LEFT)
    kinds = (
        QueueEntry.objects.filter(status=QueueEntry.Status.WAITING)
        .values_list("variant", "players", "partners", "rated")
        .distinct()
    )
    for variant, players, partners, rated in list(kinds):
        wish = Wish(variant=variant, players=players, partners=partners, rated=rated)
        with transaction.atomic():
            _lock_kind(wish, None)
            opened += _match(wish, now)
    return opened


def waiting_count(entry: QueueEntry, now=None) -> int:
    """How many people (him included) wait for the same kind of game right now."""
    now = now or timezone.now()
    return (
        QueueEntry.objects.filter(status=QueueEntry.Status.WAITING, **wish_of(entry).matches())
        .filter(seen_at__gte=now - timedelta(seconds=STALE_SECONDS))
        .count()
    )


# ---------------------------------------------------------------- internals


QUEUE_LOCK_CLASS = 1010  # the first key of the queue's PostgreSQL advisory locks


def _serialize_kind(wish: Wish) -> None:
    """One matching of a kind at a time. On PostgreSQL rows committed by another transaction
    become visible to the next statement (READ COMMITTED), so locking the rows read first is
    not enough: a transaction-scoped advisory lock per kind makes the matchings of one kind
    run one after the other. SQLite serialises every writer already (BEGIN IMMEDIATE)."""
    if connection.vendor != "postgresql":
        return
    key = zlib.crc32(f"{wish.variant}/{wish.players}/{wish.partners}/{wish.rated}".encode()) - 2**31
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [QUEUE_LOCK_CLASS, key])


def _lock_kind(wish: Wish, user) -> list[QueueEntry]:
    """Take the kind's turn, then lock its waiting rows (and the person's own row) in
    primary-key order, so no two matchings wait for each other in a circle."""
    _serialize_kind(wish)
    rows = Q(status=QueueEntry.Status.WAITING, **wish.matches())
    if user is not None:
        rows |= Q(user=user)
    return list(QueueEntry.objects.select_for_update(of=("self",)).filter(rows).select_related("user").order_by("pk"))


def _known_level(level) -> bool:
    is_level = getattr(bots, "is_level", None)
    return is_level(level) if is_level is not None else level in dict(bots.BOT_LEVELS)


def _fresh(entries, now) -> list[QueueEntry]:
    limit = now - timedelta(seconds=STALE_SECONDS)
    waiting = [e for e in entries if e.status == QueueEntry.Status.WAITING and e.seen_at >= limit]
    return sorted(waiting, key=lambda e: (e.created_at, e.pk))


def _match(wish: Wish, now) -> int:
    """Seat the first arrivals of this kind, a table at a time, while there are enough."""
    waiting = _fresh(
        QueueEntry.objects.select_for_update(of=("self",))
        .filter(status=QueueEntry.Status.WAITING, **wish.matches())
        .select_related("user")
        .order_by("pk"),
        now,
    )
    opened = 0
    while len(waiting) >= wish.players:
        group, waiting = waiting[: wish.players], waiting[wish.players :]
        table = do_create_table(
            rules=wish.rules(),
            host=group[0].user,
            turn_seconds=TURN_SECONDS,
            rated=wish.rated,
            seat_users=[e.user for e in group],
            start=True,
        )
        _seat(group, table)
        opened += 1
    return opened


def _check_bot_tables(user) -> None:
    """At most MAX_WAITING_TABLES tables opened by one person at once, counting those
    waiting for players and those playing with bots (each bot costs the workers' time)."""
    limit = limits.setting("MAX_WAITING_TABLES")
    playing_with_bots = Q(status=Table.Status.PLAYING, seats__bot_level__gt="")
    opened = Table.objects.filter(host=user).filter(Q(status=Table.Status.WAITING) | playing_with_bots).distinct()
    if opened.count() >= limit:
        raise QueueRefused(
            ngettext_lazy(
                "You already have %(count)s table open with bots or waiting for players: finish or leave it first.",
                "You already have %(count)s tables open with bots or waiting for players: finish or leave one first.",
                "count",
            ),
            count=limit,
        )


def _seat(group, table: Table) -> None:
    QueueEntry.objects.filter(pk__in=[e.pk for e in group]).update(status=QueueEntry.Status.MATCHED, table=table)
