"""Playing a game: every move, whoever makes it, goes through `_apply_move`.

Each move is one transaction with the game row locked (`select_for_update`;
on SQLite the settings open every transaction with BEGIN IMMEDIATE, which
serialises writers), so two moves sent at the same moment are applied one
after the other and the second is judged against the position the first left.
Players, bots, the turn timer (T7) and the autopilot all use this one path:
bots have no side door.

After every change `_save` stores the position cache, the next turn deadline
and the next bot move time (`bot_due_at`), and, once the transaction commits,
tells the table (notify.table_changed) and nudges a worker (notify.nudge_game).
The workers' task, `do_advance_game`, reads everything it does from the
database, so a repeated nudge changes nothing and a lost one is picked up by
the beat sweep (`due_game_ids`).
"""

import random
import threading
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, connection, connections, transaction
from django.db.models import Q
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from games import bots, engine, selectors
from games.models import Game, GameSeat, Move, Table

from . import notify, positions

AUTOPILOT_AFTER_TIMEOUTS = 3
AUTOPILOT_BOT_LEVEL = "heuristic"
BOT_PAUSE_SECONDS = (0.7, 1.6)  # a bot thinks about as long as a quick human (settings.BOT_PAUSE_SECONDS)


class MoveRefused(Exception):
    """A move the server will not make; `reason` is shown to the player."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class MoveResult:
    game_id: int
    move_number: int
    events: list = field(default_factory=list)


def do_player_move(*, game_id: int, user, action: str, expected_seat: int | None = None) -> MoveResult:
    """A signed-in player's move at the seat he holds in the game.

    His own move resets his count of timeouts in a row.
    """
    if user is None or not user.is_authenticated:
        raise MoveRefused("Sign in to play.")
    with transaction.atomic():
        game = _locked_game(game_id)
        seats = _seats(game)
        seat = next((s for s in seats.values() if s.user_id == user.pk), None)
        if seat is None:
            raise MoveRefused("You are not playing in this game.")
        if expected_seat is not None and expected_seat != seat.number:
            raise MoveRefused("That seat is not yours.")
        if seat.autopilot:
            raise MoveRefused("Your seat is on autopilot after repeated timeouts.")
        now = timezone.now()
        position = position_of(game)
        number = game.move_count
        events = _apply_move(game, position, seats, seat, action, Move.Source.PLAYER, now)
        if seat.timeouts_in_row:
            seat.timeouts_in_row = 0
            seat.save(update_fields=["timeouts_in_row"])
        _save(game, position, seats, now, events)
        return MoveResult(game_id=game.pk, move_number=number, events=events)


def do_resign(*, game_id: int, user) -> None:
    """A player leaves a running game: autopilot plays on, his result is last place."""
    with transaction.atomic():
        game = _locked_game(game_id)
        seats = _seats(game)
        seat = next((s for s in seats.values() if user is not None and s.user_id == user.pk), None)
        if seat is None:
            raise MoveRefused("You are not playing in this game.")
        if seat.autopilot:
            return
        seat.autopilot = True
        seat.abandoned = True
        seat.save(update_fields=["autopilot", "abandoned"])
        _save(game, position_of(game), seats, timezone.now(), [], cache=False)


def do_advance_game(*, game_id: int, now=None) -> int:
    """Make the moves that are due at `now`: expired turn timers, else one bot move.

    When the deadline has passed the server acts once for every human seat
    the game waits for (T7); otherwise, when a bot's pause is over, one bot
    (or autopilot) seat makes one move and the next one is scheduled.
    Idempotent: it re-reads the game under the lock and acts only on what is
    due, so a repeated or early nudge changes nothing. Returns the number of
    moves made.
    """
    now = now or timezone.now()
    with transaction.atomic():
        try:
            game = _locked_game(game_id, must_be_playing=False)
        except MoveRefused:
            return 0
        if game.is_over:
            return 0
        timer_due = game.deadline is not None and game.deadline <= now
        bot_due = game.bot_due_at is not None and game.bot_due_at <= now
        if not (timer_due or bot_due):
            return 0
        seats = _seats(game)
        position = position_of(game)
        events: list = []
        made = 0
        if timer_due:
            made = _expire_turns(game, position, seats, now, events)
        if not made and bot_due:
            made = _play_one_bot_move(game, position, seats, now, events)
        if made:
            _save(game, position, seats, now, events)
        else:
            # A time with nobody behind it (no human awaited, no bot to move): clear
            # it, so the beat sweep stops finding the game; a running clock stays.
            if timer_due:
                game.deadline = None
            if bot_due:
                game.bot_due_at = None
            game.save(update_fields=["deadline", "bot_due_at"])
        return made


def due_game_ids(now=None) -> list[int]:
    """Games with an expired timer or a bot whose pause is over (for the beat sweep)."""
    now = now or timezone.now()
    return list(
        Game.objects.filter(status=Game.Status.PLAYING)
        .filter(Q(deadline__lte=now) | Q(bot_due_at__lte=now))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def schedule_new_game(game: Game, position: engine.Game, now=None) -> None:
    """Right after a deal: set the first deadline / bot time and nudge a worker on commit."""
    _save(game, position, _seats(game), now or timezone.now(), [], cache=False, notify_table=False)


# ---------------------------------------------------------------- internals


class _Prepared:
    """A query of the move path, compiled by the ORM once per database and thread, then re-run.

    Every move runs the same two reads; building their SQL (select_related
    joins, FOR UPDATE) costs more than running them. This keeps the SQL the
    ORM generated for the database in use, with the looked-up id as its only
    parameter, and turns rows into model instances the way
    `QuerySet.__iter__` does (converters, `from_db`, select_related objects).
    Kept per thread, like Django's connections.
    """

    PLACEHOLDER = -918273645  # stands for the id while compiling (never a real pk)

    def __init__(self, build):
        self.build = build  # build(id) -> QuerySet
        self.local = threading.local()

    def _compile(self, alias: str):
        from django.db.models.query import get_related_populators

        compiler = self.build(self.PLACEHOLDER).query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        params = list(params)
        where = [i for i, p in enumerate(params) if p == self.PLACEHOLDER]
        if len(where) != 1:
            return None
        select, klass_info = compiler.select, compiler.klass_info
        converters = list(compiler.get_converters([s[0] for s in select[0 : compiler.col_count]]).items())
        fields = klass_info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        init_list = [f[0].target.attname for f in select[start:end]]
        populators = get_related_populators(klass_info, select, alias)
        return sql, params, where[0], converters, klass_info["model"], init_list, start, end, populators

    def fetch(self, value, alias: str = "default") -> list:
        plans = getattr(self.local, "plans", None)
        if plans is None:
            plans = self.local.plans = {}
        if alias not in plans:
            plans[alias] = self._compile(alias)
        plan = plans[alias]
        if plan is None:  # a shape this does not handle: plain ORM
            return list(self.build(value))
        sql, params, where, converters, model, init_list, start, end, populators = plan
        params = params[:]
        params[where] = value
        connection = connections[alias]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        objects = []
        for row in rows:
            if converters:
                row = list(row)
                for pos, (functions, expression) in converters:
                    cell = row[pos]
                    for convert in functions:
                        cell = convert(cell, expression, connection)
                    row[pos] = cell
            obj = model.from_db(alias, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            objects.append(obj)
        return objects


# The game row locked until the transaction ends, its table and host along (unlocked,
# for the snapshot sent after the move); the game's seats with their users.
_LOCKED_GAME = _Prepared(
    lambda pk: Game.objects.select_for_update(of=("self",)).select_related("table__host").filter(pk=pk)
)
_GAME_SEATS = _Prepared(lambda pk: GameSeat.objects.filter(game_id=pk).select_related("user"))


def _locked_game(game_id: int, must_be_playing: bool = True) -> Game:
    """The game row, locked until the transaction ends (its table and host come along
    unlocked, for the snapshot sent after the move)."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        try:
            game_id = int(game_id)
        except (ValueError, TypeError):
            raise MoveRefused("There is no such game.") from None
    if not 0 < game_id < 2**63:
        raise MoveRefused("There is no such game.")
    if connection.get_autocommit():
        raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
    found = _LOCKED_GAME.fetch(game_id)
    if len(found) != 1:
        raise MoveRefused("There is no such game.")
    game = found[0]
    if must_be_playing and game.is_over:
        raise MoveRefused("The game is over.")
    return game


def position_of(game: Game) -> engine.Game:
    """The current position, ours to play on (`positions.position_of`): a copy of the
    process's parsed one (`selectors.cached_position`, keyed by the state text just
    read under the lock), so a move does not parse the state the last one wrote."""
    if game.state_json:
        return selectors.cached_position(game.state_json).copy()
    return positions.position_of(game)


def _seats(game: Game) -> dict[int, GameSeat]:
    return {s.number: s for s in _GAME_SEATS.fetch(game.pk)}


def _insert_move(game_id: int, number: int, seat: int, action: str, source: str) -> None:
    """`Move.objects.create(...)` as one plain INSERT (no model instance: nothing reads it)."""
    fields = [Move._meta.get_field(name) for name in ("game", "number", "seat", "action", "source", "created_at")]
    values = (game_id, number, seat, action, source, timezone.now())  # created_at: auto_now_add
    quote = connection.ops.quote_name
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        quote(Move._meta.db_table), ", ".join(quote(f.column) for f in fields), ", ".join(["%s"] * len(fields))
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [f.get_db_prep_save(v, connection) for f, v in zip(fields, values)])


def _update_game(game: Game, names: list[str]) -> None:
    """`game.save(update_fields=names)` as one plain UPDATE of the locked row."""
    fields = [Game._meta.get_field(name) for name in names]
    quote = connection.ops.quote_name
    sql = "UPDATE {} SET {} WHERE {} = %s".format(
        quote(Game._meta.db_table), ", ".join(f"{quote(f.column)} = %s" for f in fields), quote(Game._meta.pk.column)
    )
    params = [f.get_db_prep_save(f.pre_save(game, False), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params + [game.pk])
        if cursor.rowcount != 1:
            raise DatabaseError("Save with update_fields did not affect any rows.")


def _apply_move(game: Game, position: engine.Game, seats: dict, seat: GameSeat, action, source: str, now) -> list:
    """The one path of every move: the engine judges it, the log records it.

    Raises MoveRefused with the engine's reason, changing nothing. The caller
    saves the game with `_save` once its moves are made.
    """
    try:
        action = engine.parse_action(action)
        events = position.act(seat.number, action)
    except engine.IllegalAction as refusal:
        raise MoveRefused(refusal.reason) from None
    _insert_move(game.pk, game.move_count, seat.number, str(action), source)
    game.move_count += 1
    if position.is_over:
        _finish(game, position, seats, now)
    return events


def _save(
    game: Game, position: engine.Game, seats: dict, now, events: list, *, cache: bool = True, notify_table: bool = True
) -> None:
    """Store the position cache and the next deadline / bot time; tell others on commit."""
    _schedule(game, position, seats, now)
    fields = ["deadline", "bot_due_at"]
    if cache:
        game.state_json = state_json = position.to_json()
        fields += ["move_count", "state_json"]
        # Once committed, the next move and every seat's rendering of this snapshot
        # find the position parsed (it is not changed after this point).
        transaction.on_commit(lambda: selectors.remember_position(state_json, position))
    if game.is_over:
        fields += ["status", "result", "finished_at"]
    _update_game(game, fields)
    game_id, table_id, variant = game.pk, game.table_id, game.variant
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


def _schedule(game: Game, position: engine.Game, seats: dict, now) -> None:
    """The turn deadline (a human seat is awaited, T7) and the next bot move time."""
    game.deadline = None
    game.bot_due_at = None
    if position.is_over or game.is_over:
        return
    to_move = position.to_move()
    if game.turn_seconds and any(not seats[s].is_bot_controlled for s in to_move):
        game.deadline = now + timedelta(seconds=game.turn_seconds)
    if any(seats[s].is_bot_controlled for s in to_move):
        low, high = getattr(settings, "BOT_PAUSE_SECONDS", BOT_PAUSE_SECONDS)
        game.bot_due_at = now + timedelta(seconds=random.uniform(low, high))


def _expire_turns(game: Game, position: engine.Game, seats: dict, now, events: list) -> int:
    """T7: the server acts once for every human seat the game waits for.

    An opener plays his lowest card, a defender takes, a thrower passes.
    Each is a timeout in a row for that seat; the third puts it on autopilot
    (abandoned: its result counts as last place).
    """
    made = 0
    waited_for = [n for n in position.to_move() if not seats[n].is_bot_controlled]
    for number in waited_for:
        if position.is_over:
            break
        action = position.timeout_action(number)
        if action is None:  # no longer awaited after the moves just made
            continue
        seat = seats[number]
        seat.timeouts_in_row += 1
        if seat.timeouts_in_row >= AUTOPILOT_AFTER_TIMEOUTS:
            seat.autopilot = True
            seat.abandoned = True
        # Saved before the move, so a game it ends already counts the seat as abandoned.
        seat.save(update_fields=["timeouts_in_row", "autopilot", "abandoned"])
        events += _apply_move(game, position, seats, seat, action, Move.Source.TIMEOUT, now)
        made += 1
    return made


def _play_one_bot_move(game: Game, position: engine.Game, seats: dict, now, events: list) -> int:
    """One move of the first bot or autopilot seat the game waits for."""
    for number in position.to_move():
        seat = seats[number]
        if not seat.is_bot_controlled:
            continue
        level = seat.bot_level or AUTOPILOT_BOT_LEVEL
        source = Move.Source.BOT if seat.bot_level else Move.Source.AUTOPILOT
        bot = bots.get_bot(level, seed=f"{game.seed}:{game.move_count}")
        action = bot.choose(position.view(number))
        try:
            events += _apply_move(game, position, seats, seat, action, source, now)
        except MoveRefused:
            # A bot bug must never stall a table: fall back to the timeout move.
            events += _apply_move(game, position, seats, seat, position.timeout_action(number), source, now)
        return 1
    return 0


def _finish(game: Game, position: engine.Game, seats: dict, now) -> None:
    """R19-R21 into the records ratings and standings read; abandoning is last place."""
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.result = {
        "places": {str(s): p for s, p in sorted(position.places.items())},
        "durak": position.durak,
        "losers": list(position.losers),
        "draw": not position.losers,
    }
    last_place = game.rules["players"]
    for seat in seats.values():
        seat.place = position.places.get(seat.number)
        seat.counted_place = last_place if seat.abandoned else seat.place
        seat.is_loser = seat.number in position.losers
        seat.save(update_fields=["place", "counted_place", "is_loser"])
    Table.objects.filter(pk=game.table_id).update(status=Table.Status.FINISHED, updated_at=now)
    game.table.status = Table.Status.FINISHED
