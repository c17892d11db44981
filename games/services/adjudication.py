"""Ending a live game now, without playing it out: a forfeit or an adjudication.

A forfeit ends a game that some seat's player never came to (tournaments' no-show
rule); an adjudication is the outcome a tournament director sets for a stuck game.
Either is one transaction with the game row locked, like every move (play.py).

The seed and the move log stay the truth of what was played: no move is invented
and none is removed. The outcome is stored as for any finish (`Game.result`, each
seat's `place`, `counted_place`, `is_loser`), and `Game.result["ended"]` says how
the game ended instead of being played out: the reason ("forfeit", "adjudicated"
or "claimed", games.services.claim), by whom (a user id or None), when, and after how many moves (so
the verification replays the log to that point and finds the stored position).
Whether a rated game so ended still counts the ratings app decides
(`games.extensions.rated_when_ended`: ratings.counted holds the rule).
It is saved through the play path's `_save`, so the table is told and
`games.signals.game_finished` is sent on commit as after the last move of a game.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import extensions
from games.errors import MoveRefused
from games.models import Game, Table
from games.positions import position_of

from . import store

FORFEIT = "forfeit"
ADJUDICATED = "adjudicated"


def forfeit_places(out: dict[int, int], seats: list[int], absent: set[int]) -> dict[int, int]:
    """Places when the `absent` seats forfeit a game in which `out` (seat: place) have gone out.

    The others rank as if the absent were not there: those already out keep their
    order, those still in share the next place; the absent share the last places.
    """
    present = [n for n in seats if n not in absent]
    gone = sorted((n for n in present if n in out), key=lambda n: out[n])
    places = {n: rank for rank, n in enumerate(gone, start=1)}
    places.update(dict.fromkeys((n for n in present if n not in out), len(gone) + 1))
    places.update(dict.fromkeys(absent, len(present) + 1))
    return places


def do_forfeit_game(*, game_id: int, absent_seats, now=None) -> bool:
    """The players of `absent_seats` never came: they are placed last, lose, and their
    seats count as abandoned (on autopilot, as after a resign); the others' places are
    `forfeit_places`. Whether it is still rated the ratings decide (`_end`).
    Returns whether the game was ended (False: already over)."""
    absent = {int(n) for n in absent_seats}
    if not absent:
        raise MoveRefused(_("Name the seats whose players did not come."))
    with transaction.atomic():
        try:
            game = store.locked_game(game_id)
        except MoveRefused:
            return False
        seats = store.game_seats(game)
        if not absent <= set(seats):
            raise MoveRefused(_("That seat is not at the table."))
        end_without(game, seats, position_of(game), absent, FORFEIT, None, now or timezone.now())
    return True


def end_without(game: Game, seats: dict, position, absent: set[int], reason: str, by_id, now) -> None:
    """End the locked `game` now against the `absent` seats: they are placed last, lose, and
    count as abandoned (on autopilot, as after a resign); the others' places are
    `forfeit_places`. A forfeit (`do_forfeit_game`) and a claimed win
    (games.services.claim) end a game this way."""
    places = forfeit_places(dict(position.places), sorted(seats), absent)
    for number in absent:
        seats[number].autopilot = True
        seats[number].abandoned = True
    _end(game, position, seats, places, sorted(absent), reason, by_id, now)


def do_adjudicate_game(*, game_id: int, places: dict, by_id: int | None, now=None) -> None:
    """A director ends a stuck game with the places he sets: `places` {seat: place},
    every seat once, places from 1 to the number of seats. The worst place loses
    (the durak when one seat holds it); all in one place is a draw. His places count
    as given: a seat that had left the game is no longer counted as abandoned."""
    with transaction.atomic():
        game = store.locked_game(game_id)
        seats = store.game_seats(game)
        try:
            given = {int(seat): int(place) for seat, place in places.items()}
        except (TypeError, ValueError, AttributeError):
            raise MoveRefused(_("Give every seat a place.")) from None
        if set(given) != set(seats):
            raise MoveRefused(_("Give every seat a place."))
        if any(not 1 <= place <= len(seats) for place in given.values()):
            raise MoveRefused(_("A place is a number from 1 to %(seats)s."), seats=len(seats))
        worst = max(given.values())
        losers = sorted(n for n, place in given.items() if place == worst) if min(given.values()) < worst else []
        for seat in seats.values():
            seat.abandoned = False
        _end(game, position_of(game), seats, given, losers, ADJUDICATED, by_id, now or timezone.now())


def _end(game: Game, position, seats: dict, places: dict, losers: list, reason: str, by_id, now) -> None:
    game.status = Game.Status.FINISHED
    game.finished_at = now
    ended = {"reason": reason, "by": by_id, "at": now.isoformat(), "moves": game.move_count}
    game.result = {
        "places": {str(n): places[n] for n in sorted(places)},
        "durak": losers[0] if len(losers) == 1 else None,
        "losers": list(losers),
        "draw": not losers,
        "ended": ended,
    }
    if game.rated and not extensions.rated_when_ended(ended, game.move_count):
        # Decided before real play (ratings' rule): the finish below says so to every receiver.
        game.rated = False
        Game.objects.filter(pk=game.pk).update(rated=False)
    for seat in seats.values():
        seat.place = places[seat.number]
        seat.counted_place = places[seat.number]
        seat.is_loser = seat.number in losers
        seat.save(update_fields=["place", "counted_place", "is_loser", "abandoned", "autopilot"])
    Table.objects.filter(pk=game.table_id).update(status=Table.Status.FINISHED, updated_at=now)
    game.table.status = Table.Status.FINISHED
    store.save_game(game, position, seats, now, [], cache=False)
