"""The lock and save helpers every game service shares: a game row locked with its seats,
a table row locked, and a game saved with its next deadline and bot time, the others told
on commit. `play` (the moves), `adjudication`, `claim` and `event_tables` act through these.
"""

import random
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.utils.translation import gettext_lazy as _

from games import engine, positions, selectors, signals
from games.errors import MoveRefused, TableRefused
from games.models import Game, GameSeat, Table

from . import clock, notify, sql

BOT_PAUSE_SECONDS = (0.7, 1.6)  # a bot thinks about as long as a quick human (settings.BOT_PAUSE_SECONDS)


# The game row locked until the transaction ends, its table and host along (unlocked,
# for the snapshot sent after the move); the game's seats with their users, in seat order.
LOCKED_GAME = sql.Prepared(Game, "pk", joins=("table", "table__host"), lock=True)
GAME_SEATS = sql.Prepared(GameSeat, "game", joins=("user",), order_by="number")


def locked_game(game_id: int, must_be_playing: bool = True) -> Game:
    """The game row, locked until the transaction ends (its table and host come along
    unlocked, for the snapshot sent after the move). An id may come as digits (a URL,
    a socket frame); anything else that is not a whole number (True, 2.5) is no game."""
    if isinstance(game_id, str) and game_id.strip().isdecimal():
        game_id = int(game_id)
    if isinstance(game_id, bool) or not isinstance(game_id, int) or not 0 < game_id < 2**63:
        raise MoveRefused(_("There is no such game."))
    if connection.get_autocommit():
        raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
    found = LOCKED_GAME.fetch(game_id)
    if len(found) != 1:
        raise MoveRefused(_("There is no such game."))
    game = found[0]
    if must_be_playing and game.is_over:
        raise MoveRefused(_("The game is over."))
    return game


def game_seats(game: Game) -> dict[int, GameSeat]:
    return {s.number: s for s in GAME_SEATS.fetch(game.pk)}


def locked_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise TableRefused(_("There is no such table.")) from None


def notify_table(table: Table) -> None:
    """Once the transaction commits, the table's sockets and the lobby hear of the change."""
    table_id = table.pk
    transaction.on_commit(lambda: notify.table_changed(table_id))


def save_game(
    game: Game,
    position: engine.Game,
    seats: dict,
    now,
    events: list,
    *,
    cache: bool = True,
    notify_table: bool = True,
    schedule: bool = True,
) -> None:
    """Store the position cache and the next deadline / bot time (`schedule`: from the
    position; else as they are); tell others on commit."""
    if schedule:
        schedule_deadlines(game, position, seats, now)
    fields = ["deadline", "bot_due_at"]
    if cache:
        game.state_json = state_json = position.to_json()
        fields += ["move_count", "state_json"]
        # Once committed, the next move and every seat's rendering of this snapshot
        # find the position parsed (it is not changed after this point).
        transaction.on_commit(lambda: positions.remember(state_json, position))
    if game.is_over:
        fields += ["status", "result", "finished_at"]
    sql.update_game(game, fields)
    game_id, table_id, variant = game.pk, game.table_id, game.variant
    if game.is_over:
        rated = game.rated
        transaction.on_commit(
            lambda: signals.game_finished.send_robust(
                sender=Game, game_id=game_id, table_id=table_id, variant=variant, rated=rated
            )
        )
    if notify_table:
        game_over = game.is_over
        seat_rows = [seats[n] for n in sorted(seats)]
        # Built from the rows at hand, no query: while a game is on, the table's seats
        # are the game's (tables.py refuses to change them), and this game is its latest.
        transaction.on_commit(
            lambda: notify.table_changed(
                table_id,
                events,
                lobby=game_over,
                snapshot=selectors.snapshot_of(game.table, seat_rows, game, seat_rows),
            )
        )
    if game.bot_due_at is not None:
        # Expired deadlines need no nudge: the beat sweep finds them within a second.
        delay = max(0.0, (game.bot_due_at - now).total_seconds())
        transaction.on_commit(lambda: notify.nudge_game(game_id, variant, delay))


def schedule_deadlines(game: Game, position: engine.Game, seats: dict, now) -> None:
    """The turn deadline (a human seat is awaited, T7) and the next bot move time."""
    game.deadline = None
    game.bot_due_at = None
    if position.is_over or game.is_over:
        return
    to_move = position.to_move()
    awaited = [seats[s] for s in to_move if not seats[s].is_bot_controlled]
    if game.turn_seconds and awaited:
        game.deadline = now + timedelta(seconds=clock.turn_timer(game.turn_seconds, awaited))
    if any(seats[s].is_bot_controlled for s in to_move):
        low, high = getattr(settings, "BOT_PAUSE_SECONDS", BOT_PAUSE_SECONDS)
        game.bot_due_at = now + timedelta(seconds=random.uniform(low, high))
