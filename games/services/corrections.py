"""Correcting the counted outcome of a finished game (a tournament director's correction).

What was played stays: the seed, the move log, each seat's played `place` and
`is_loser`, and `Game.result`'s outcome (so the verification still replays the
log to the same finish). What changes is what ratings read: each seat's
`counted_place`; `Game.result["corrected"]` lists who corrected it, when, and
the counted places before and after. The records page shows the counted place with
the played one beside it. The caller asks for the variant's ratings to be
recomputed (a correction can move a game of the past).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.errors import MoveRefused
from games.models import Game


def do_correct_counted_places(*, game_id: int, places: dict, by_id: int | None, now=None) -> dict[int, int]:
    """Set the counted places of a finished game: `places` {seat: place}, every seat once,
    1 to the number of seats. Returns the counted places before the correction ({seat: place})."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise MoveRefused(_("There is no such game."))
        if game.status != Game.Status.FINISHED:
            raise MoveRefused(_("The game is not over."))
        seats = {seat.number: seat for seat in game.seats.all()}
        try:
            given = {int(seat): int(place) for seat, place in places.items()}
        except (TypeError, ValueError, AttributeError):
            raise MoveRefused(_("Give every seat a place.")) from None
        if set(given) != set(seats) or any(not 1 <= p <= len(seats) for p in given.values()):
            raise MoveRefused(_("Give every seat a place."))
        before = {n: seat.counted_place for n, seat in seats.items()}
        for number, seat in seats.items():
            seat.counted_place = given[number]
            seat.save(update_fields=["counted_place"])
        result = dict(game.result or {})
        history = list(result.get("corrected") or [])
        history.append(
            {
                "by": by_id,
                "at": now.isoformat(),
                "before": {str(n): p for n, p in sorted(before.items())},
                "after": {str(n): p for n, p in sorted(given.items())},
            }
        )
        result["corrected"] = history
        game.result = result
        game.save(update_fields=["result"])
    return before
