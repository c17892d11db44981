"""Closing a tournament round's table before anything was played at it.

A director who seats again tables of a round under way (or puts a substitute in a
seat) has their first games dealt already, with no move made. Such a table is
closed without a result: its unplayed game is removed (no card was played, so
nobody won, lost or was rated), and the event opens a new table with the new seats.

A director may also put a house bot in a seat of such a table (`do_seat_house_bot`),
dealt or begun: the bot plays that seat from now to the end of the round there, in
the game on and in the games dealt after it. A game with a house bot is never rated.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.errors import TableRefused
from games.models import Game, Table
from games.positions import position_of

from . import store

HOUSE_BOT_LEVEL = "medium"  # the club player: answers at once, as the autopilot does


def do_close_unstarted_table(*, table_id: int) -> None:
    """Close an event's table whose only game has no move yet; the game leaves no result.
    Refused if play has begun there (a move made, or a game finished)."""
    with transaction.atomic():
        table = store.locked_table(table_id)
        if not table.managed_by_event:
            raise TableRefused(_("Only a tournament round's table is closed this way."))
        games = list(Game.objects.select_for_update().filter(table=table))
        if len(games) > 1 or any(g.move_count or g.status != Game.Status.PLAYING for g in games):
            raise TableRefused(_("Play has begun at this table."))
        for game in games:
            game.delete()  # seats and (empty) move log go with it
        table.status = Table.Status.CLOSED
        table.updated_at = timezone.now()
        table.save(update_fields=["status", "updated_at"])
        store.notify_table(table)


def do_seat_house_bot(*, table_id: int, seat: int, level: str = HOUSE_BOT_LEVEL, now=None) -> None:
    """A house bot of `level` takes seat `seat` of an event's table: its player leaves the
    seat, the bot plays the game on from where it stands and every game dealt at the table
    after it. The table and the game on are no longer rated (ratings measure people)."""
    with transaction.atomic():
        table = store.locked_table(table_id)
        if not table.managed_by_event:
            raise TableRefused(_("A house bot takes a seat at a tournament round's table only."))
        if table.status == Table.Status.CLOSED:
            raise TableRefused(_("This table is closed."))
        table_seat = table.seats.select_for_update().filter(number=seat).first()
        if table_seat is None:
            raise TableRefused(_("That seat is not at the table."))
        if table_seat.user_id is None:
            raise TableRefused(_("A house bot already plays in this seat."))
        on = Game.objects.filter(table=table, status=Game.Status.PLAYING).order_by("-number").first()
        if on is not None:
            game = store.locked_game(on.pk)
            seats = store.game_seats(game)
            position = position_of(game)
            if seat in position.places:
                raise TableRefused(_("The player of this seat has already gone out of the game on."))
            game_seat = seats[seat]
            game_seat.user = None
            game_seat.bot_level = level
            game_seat.autopilot = False
            game_seat.timeouts_in_row = 0
            game_seat.save(update_fields=["user", "bot_level", "autopilot", "timeouts_in_row"])
            if game.rated:
                game.rated = False
                Game.objects.filter(pk=game.pk).update(rated=False)
            # The bot's first move is scheduled (and the table told) as after any move.
            store.save_game(game, position, seats, now or timezone.now(), [], cache=False)
        table_seat.user = None
        table_seat.bot_level = level
        table_seat.ready = True
        table_seat.save(update_fields=["user", "bot_level", "ready"])
        table.rated = False
        table.updated_at = now or timezone.now()
        table.save(update_fields=["rated", "updated_at"])
        store.notify_table(table)
