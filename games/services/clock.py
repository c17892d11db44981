"""Fair clocks: time nobody could move in is never charged to a player.

Two cases, both re-derived from the database:

- The site (or its timers) was down. The one-second sweep records a heartbeat
  (`SweepHeartbeat`); when it finds the last one older than
  `settings.CLOCK_OUTAGE_SECONDS`, it first moves every running turn deadline on
  by the gap, in the transaction that holds the heartbeat row locked, and only
  then looks for expired timers (`do_beat`, called by games.tasks.sweep_due_games).
  A repeated or concurrent sweep waits for that lock and then finds a fresh
  heartbeat, so the deadlines move once. A worker's nudge that finds an expired
  deadline before the sweep has run leaves it alone (`outage_unaccounted`).
- A player's connection dropped. When his turn runs out while none of his sockets
  is open (`TableSeat.offline_since`, games.services.presence), he gets one extra
  wait of `settings.DISCONNECT_GRACE_SECONDS` per game before the timeout counts
  (`grant_grace`, called by play.do_advance_game).
- A tournament player has not come to his table yet. The event's no-show rule decides
  his game when its grace (`Table.arrival_grace`) is over, after each deal: until then
  his turn never times out, so the autopilot never plays for someone who never arrived
  (`wait_for_arrival`, called by play.do_advance_game).

One more rule of the turn timer: a seat that went berserk in an arena game
(`GameSeat.berserk`, play.do_go_berserk) has half the table's timer (`turn_timer`).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import selectors
from games.models import Game, SweepHeartbeat, TableSeat

OUTAGE_SECONDS = 5  # default of settings.CLOCK_OUTAGE_SECONDS: five missed sweeps in a row
GRACE_SECONDS = 15  # default of settings.DISCONNECT_GRACE_SECONDS
HEARTBEAT_PK = 1


def outage_threshold() -> timedelta:
    return timedelta(seconds=getattr(settings, "CLOCK_OUTAGE_SECONDS", OUTAGE_SECONDS))


def grace_period() -> timedelta:
    return timedelta(seconds=getattr(settings, "DISCONNECT_GRACE_SECONDS", GRACE_SECONDS))


def do_beat(*, now=None) -> timedelta:
    """The sweep's heartbeat. After an outage (the last beat older than the threshold)
    every playing game's deadline moves on by the gap first. Returns the gap charged
    to nobody (zero when there was no outage)."""
    now = now or timezone.now()
    with transaction.atomic():
        beat = SweepHeartbeat.objects.select_for_update().filter(pk=HEARTBEAT_PK).first()
        if beat is None:
            # The first sweep there is: nothing tells how long the site was down before it.
            SweepHeartbeat.objects.get_or_create(pk=HEARTBEAT_PK, defaults={"beat_at": now})
            return timedelta(0)
        gap = now - beat.beat_at
        if gap <= timedelta(0):
            return timedelta(0)  # a sweep with an older clock than the last one: nothing to record
        outage = gap if gap > outage_threshold() else timedelta(0)
        if outage:
            Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False).update(
                deadline=F("deadline") + outage
            )
            beat.resumed_at = now
        beat.beat_at = now
        beat.save(update_fields=["beat_at", "resumed_at"])
        return outage


def resumed_at():
    """When the sweep last found the site back after an outage (None: never)."""
    return SweepHeartbeat.objects.filter(pk=HEARTBEAT_PK).values_list("resumed_at", flat=True).first()


def outage_unaccounted(now=None) -> bool:
    """Whether the sweep has stopped for longer than the threshold and not yet moved the
    deadlines on: until it has, an expired deadline may be time the site was down."""
    beat_at = SweepHeartbeat.objects.filter(pk=HEARTBEAT_PK).values_list("beat_at", flat=True).first()
    return beat_at is not None and (now or timezone.now()) - beat_at > outage_threshold()


def grant_grace(game: Game, waited_for: list, now) -> bool:
    """The turn of the game's awaited human seats (`waited_for`, GameSeat rows) has run out:
    those of them whose player has no socket open and has not had his extra wait in this
    game get it now (the deadline moves to `now` + the grace). Returns whether it did; the
    caller saves the game's deadline. Runs with the game row locked."""
    unused = {seat.user_id: seat for seat in waited_for if seat.user_id is not None and not seat.grace_used}
    if not unused:
        return False
    offline = set(
        TableSeat.objects.filter(
            table_id=game.table_id, user_id__in=list(unused), offline_since__isnull=False
        ).values_list("user_id", flat=True)
    )
    if not offline:
        return False
    for user_id in offline:
        seat = unused[user_id]
        seat.grace_used = True
        seat.save(update_fields=["grace_used"])
    game.deadline = now + grace_period()
    return True


def wait_for_arrival(game: Game, waited_for: list, now) -> bool:
    """The turn of the game's awaited human seats (`waited_for`, GameSeat rows) has run out
    within the table's arrival grace while one of them has not come to the table (no socket
    opened from his seat, no move of his own): the timer waits until the grace is over, and
    a turn more, so the no-show rule ends the game first and one who comes late still has
    his turn. Returns whether it waits; the caller saves the game's deadline. Runs with the
    game row locked."""
    grace = game.table.arrival_grace
    if not grace or now >= game.started_at + grace:
        return False
    users = {seat.user_id for seat in waited_for if seat.user_id is not None}
    if not users or users <= selectors.users_who_came(game.table_id):
        return False
    game.deadline = game.started_at + grace + timedelta(seconds=game.turn_seconds or 0)
    return True


BERSERK_SHARE = 0.5  # of the table's turn timer, for a seat that went berserk


def turn_timer(turn_seconds: int | None, awaited: list) -> float | None:
    """The seconds the awaited human seats (GameSeat rows) get for this turn: the table's
    timer, halved when every one of them went berserk. While the game waits for a seat that
    did not go berserk as well (throw-ins), nobody is hurried for another's berserk."""
    if not turn_seconds:
        return None
    if awaited and all(seat.berserk for seat in awaited):
        return turn_seconds * BERSERK_SHARE
    return float(turn_seconds)
