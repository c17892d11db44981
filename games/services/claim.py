"""Claiming the game over a player who left (lichess's "claim victory").

At a table without a turn timer nothing makes a player who closed his tab move: the
others would wait for ever, with resigning (last place) their only way out. So once
an opponent's seat has been offline (`TableSeat.offline_since`, set when he closes his
last table socket: games.services.presence) for `CLAIM_AFTER_SECONDS`, any other
player still at the table may end the game: the seats that are gone rank last and
lose, the others by the position they reached (`adjudication.end_without`, as a
forfeit, with the reason "claimed"). A table with a timer needs no claim: the timer
and then the autopilot play for whoever is away.

`leavers` is the one rule of who counts as gone; the table's page (the button) and
`do_claim_victory` (the write) both read it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.errors import MoveRefused
from games.models import TableSeat
from games.positions import position_of

from . import adjudication, store

CLAIM_AFTER_SECONDS = 60  # how long an opponent must have been offline before the others may claim the game
CLAIMED = "claimed"  # Game.result["ended"]["reason"]


def claim_after() -> timedelta:
    return timedelta(seconds=CLAIM_AFTER_SECONDS)


def leavers(seats, offline: dict, claimer_id, teams: dict | None = None) -> dict[int, datetime]:
    """The claimer's opponents who are gone, as {seat number: offline since}.

    `seats`: the game's seats as dicts (number, user_id, autopilot, place); `offline`
    {user id: since when} (datetimes); `teams` {seat: team} in a partners game (a
    partner is never claimed against). A seat counts when a person holds it, he is
    not the claimer, he is still in the game (no place yet), his seat is not on
    autopilot (the autopilot plays on for him: the game is not stuck) and he is offline.
    Nothing when the claimer holds no seat of his own that he plays himself."""
    seats = list(seats)
    mine = next((s for s in seats if claimer_id is not None and s["user_id"] == claimer_id), None)
    if mine is None or mine["autopilot"]:
        return {}
    my_team = (teams or {}).get(mine["number"])
    gone = {}
    for seat in seats:
        if seat is mine or seat["user_id"] is None or seat["autopilot"] or seat["place"] is not None:
            continue
        if my_team is not None and (teams or {}).get(seat["number"]) == my_team:
            continue
        since = offline.get(seat["user_id"])
        if since is not None:
            gone[seat["number"]] = since
    return gone


def claim_opens_at(gone: dict[int, datetime]) -> datetime | None:
    """When the first of the `leavers` may be claimed against (None: nobody is gone)."""
    return min(gone.values()) + claim_after() if gone else None


def do_claim_victory(*, game_id: int, user, now=None) -> list[int]:
    """End the game at once against the opponents offline for `CLAIM_AFTER_SECONDS` or
    more (they rank last, the others by their position), at `user`'s request. One
    transaction with the game row locked, as every move. Returns the seats claimed
    against. Refused, changing nothing: not his game, a table with a turn timer,
    nobody gone (he is back), too early."""
    now = now or timezone.now()
    if user is None or not user.is_authenticated:
        raise MoveRefused(_("Sign in to play."))
    with transaction.atomic():
        game = store.locked_game(game_id)
        seats = store.game_seats(game)
        mine = next((s for s in seats.values() if s.user_id == user.pk), None)
        if mine is None or mine.autopilot:
            raise MoveRefused(_("You can claim the game only at a table where you play yourself."))
        if game.turn_seconds:
            raise MoveRefused(_("This table has a turn timer: whoever is away runs out of time, nothing to claim."))
        position = position_of(game)
        offline = dict(
            TableSeat.objects.filter(table_id=game.table_id, offline_since__isnull=False).values_list(
                "user_id", "offline_since"
            )
        )
        rows = [
            {"number": s.number, "user_id": s.user_id, "autopilot": s.autopilot, "place": position.places.get(s.number)}
            for s in seats.values()
        ]
        teams = {n: position.rules.team_of(n) for n in seats} if game.rules.get("partners") else None
        gone = leavers(rows, offline, user.pk, teams)
        if not gone:
            raise MoveRefused(_("Your opponents are at the table: there is no game to claim."))
        due = {n for n, since in gone.items() if since + claim_after() <= now}
        if not due:
            wait = max(1, int((claim_opens_at(gone) - now).total_seconds() + 0.999))
            raise MoveRefused(
                _("Too early: an opponent must be away for %(limit)s s before you claim the game (%(wait)s s more)."),
                limit=CLAIM_AFTER_SECONDS,
                wait=wait,
            )
        adjudication.end_without(game, seats, position, due, CLAIMED, user.pk, now)
        return sorted(due)
