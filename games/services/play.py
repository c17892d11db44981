"""Playing a game: every move, whoever makes it, goes through `_apply_move`.

Each move is one transaction with the game row locked (`select_for_update`;
on SQLite the settings open every transaction with BEGIN IMMEDIATE, which
serialises writers), so two moves sent at the same moment are applied one
after the other and the second is judged against the position the first left.
Players, bots, the turn timer (T7) and the autopilot all use this one path:
bots have no side door.

After every change `store.save_game` stores the position cache, the next turn deadline
and the next bot move time (`bot_due_at`), and, once the transaction commits,
tells the table (notify.table_changed), nudges a worker (notify.nudge_game)
and, when the game is over, sends `games.signals.game_finished`. The workers'
task, `do_advance_game`, reads everything it does from the database, so a
repeated nudge changes nothing and a lost one is picked up by the beat sweep
(`selectors.due_game_ids`).
"""

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import bots, engine, positions
from games.errors import MoveRefused, from_engine
from games.models import Game, GameSeat, Move, Table
from games.positions import position_of

from . import clock, sql, store

AUTOPILOT_AFTER_TIMEOUTS = 3
# Medium, never a searching level: the autopilot answers at once when a player's time has run out.
AUTOPILOT_BOT_LEVEL = "heuristic"


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
        raise MoveRefused(_("Sign in to play."))
    with transaction.atomic():
        game = store.locked_game(game_id)
        seats = store.game_seats(game)
        seat = _own_seat(seats, user)
        if expected_seat is not None and expected_seat != seat.number:
            raise MoveRefused(_("That seat is not yours."))
        if seat.autopilot:
            raise MoveRefused(_("Your seat is on autopilot after repeated timeouts."))
        now = timezone.now()
        position = position_of(game)
        number = game.move_count
        events = _apply_move(game, position, seats, seat, action, Move.Source.PLAYER, now)
        if seat.timeouts_in_row:
            seat.timeouts_in_row = 0
            seat.save(update_fields=["timeouts_in_row"])
        store.save_game(game, position, seats, now, events)
        return MoveResult(game_id=game.pk, move_number=number, events=events)


def do_resign(*, game_id: int, user) -> None:
    """A player leaves a running game: autopilot plays on, his result is last place."""
    with transaction.atomic():
        game = store.locked_game(game_id)
        seats = store.game_seats(game)
        seat = _own_seat(seats, user)
        if seat.autopilot:
            return
        seat.autopilot = True
        seat.abandoned = True
        seat.save(update_fields=["autopilot", "abandoned"])
        store.save_game(game, position_of(game), seats, timezone.now(), [], cache=False)


def do_go_berserk(*, game_id: int, user) -> None:
    """Arena berserk: before his first move of the game a player halves his own turn timer
    for the rest of it (clock.turn_timer), for an extra point if he wins (the event scores
    it). A turn of his already running is cut to the half timer, never lengthened. A repeat
    changes nothing."""
    with transaction.atomic():
        game = store.locked_game(game_id)
        seats = store.game_seats(game)
        seat = _own_seat(seats, user)
        if seat.berserk:
            return
        if Move.objects.filter(game=game, seat=seat.number).exists():
            raise MoveRefused(_("Berserk is possible only before your first move of the game."))
        seat.berserk = True
        seat.save(update_fields=["berserk"])
        now = timezone.now()
        position = position_of(game)
        running, bot_due = game.deadline, game.bot_due_at
        store.schedule_deadlines(game, position, seats, now)
        if running is not None and game.deadline is not None:
            game.deadline = min(running, game.deadline)
        game.bot_due_at = bot_due  # a bot's pause is not the berserk's business
        store.save_game(game, position, seats, now, [], cache=False, schedule=False)


def return_counts_normally(rated: bool) -> bool:
    """Whether a seat taken back from the autopilot ("I'm back") has its result counted as played.

    The club's rule: at an unrated table, yes; at a rated table (and a tournament's
    tables are rated) no: once the seat has gone on autopilot it counts as last place,
    even if its player comes back to finish the game, so nobody can let a bot play the
    hard part of a rated game for him.
    """
    return not rated


def do_return_to_seat(*, game_id: int, user) -> None:
    """The "I'm back" button: a player takes his seat back from the autopilot (after timeouts or a resign).

    His count of timeouts starts again from zero and the turn timer (if any) runs for
    him again; whether his result counts normally is `return_counts_normally`.
    """
    with transaction.atomic():
        game = store.locked_game(game_id)
        seats = store.game_seats(game)
        seat = _own_seat(seats, user)
        if not seat.autopilot:
            raise MoveRefused(_("Your seat is not on autopilot: it is yours already."))
        seat.autopilot = False
        seat.timeouts_in_row = 0
        if return_counts_normally(game.rated):
            seat.abandoned = False
        seat.save(update_fields=["autopilot", "timeouts_in_row", "abandoned"])
        store.save_game(game, position_of(game), seats, timezone.now(), [], cache=False)


FINISH_NOW_MAX_MOVES = 5000  # far above any real game: a guard against a bot that never ends one


def may_finish_now(position: engine.Game, seats: dict, user_id) -> bool:
    """Once the viewer's part is over and only bots (or autopilots) still play, he may end it at once."""
    mine = next((s for s in seats.values() if user_id is not None and s.user_id == user_id), None)
    if mine is None or position.is_over:
        return False
    still_playing = [n for n in range(position.n) if n not in position.places]
    return bool(still_playing) and all(seats[n].is_bot_controlled for n in still_playing)


def do_finish_now(*, game_id: int, user) -> int:
    """Play a game that only bots still play out at once, instead of move by move
    with a bot's pause each: the same moves through the same path, in one transaction.
    Returns the number of moves made."""
    with transaction.atomic():
        game = store.locked_game(game_id)
        seats = store.game_seats(game)
        position = position_of(game)
        if not may_finish_now(position, seats, user.pk if user is not None else None):
            raise MoveRefused(_("Only a player whose part is over can finish a game that only bots still play."))
        now = timezone.now()
        events: list = []
        made = 0
        while not position.is_over:
            if made >= FINISH_NOW_MAX_MOVES or not _play_one_bot_move(game, position, seats, now, events):
                break
            made += 1
        store.save_game(game, position, seats, now, events[-60:])
        return made


def do_close_idle_game(*, game_id: int, idle_before) -> bool:
    """A game without a turn timer that nobody has moved in since `idle_before`: its people
    have gone, and without a timer it would never end. Every person still in it goes on
    autopilot (counted as last, as after a resign) and the bots play it out at once.
    Idempotent: re-checked under the lock; returns whether the game was ended."""
    with transaction.atomic():
        try:
            game = store.locked_game(game_id)
        except MoveRefused:
            return False
        if game.turn_seconds:
            return False
        last_move = game.moves.order_by("-number").values_list("created_at", flat=True).first()
        if (last_move or game.started_at) >= idle_before:
            return False
        seats = store.game_seats(game)
        position = position_of(game)
        for seat in seats.values():
            if seat.user_id is not None and not seat.autopilot and seat.number not in position.places:
                seat.autopilot = True
                seat.abandoned = True
                seat.save(update_fields=["autopilot", "abandoned"])
        now = timezone.now()
        events: list = []
        made = 0
        while not position.is_over and made < FINISH_NOW_MAX_MOVES:
            if not _play_one_bot_move(game, position, seats, now, events):
                break
            made += 1
        store.save_game(game, position, seats, now, events[-60:])
        return game.is_over


def do_advance_game(*, game_id: int, now=None) -> int:
    """Make the moves that are due at `now`: expired turn timers, else one bot move.

    When the deadline has passed the server acts once for every human seat
    the game waits for (T7); otherwise, when a bot's pause is over, one bot
    (or autopilot) seat makes one move and the next one is scheduled.
    Idempotent: it re-reads the game under the lock and acts only on what is
    due, so a repeated or early nudge changes nothing. Returns the number of
    moves made. Time the site was down, and a disconnected player's one extra
    wait of the game, are never charged as a timeout (games.services.clock).
    """
    now = now or timezone.now()
    with transaction.atomic():
        try:
            game = store.locked_game(game_id, must_be_playing=False)
        except MoveRefused:
            return 0
        if game.is_over:
            return 0
        timer_due = game.deadline is not None and game.deadline <= now
        bot_due = game.bot_due_at is not None and game.bot_due_at <= now
        if timer_due and clock.outage_unaccounted():
            timer_due = False  # the deadline may have run out while the site was down: the sweep moves it first
        if not (timer_due or bot_due):
            return 0
        seats = store.game_seats(game)
        position = position_of(game)
        events: list = []
        made = 0
        graced = False
        if timer_due:
            waited_for = [seats[n] for n in position.to_move() if not seats[n].is_bot_controlled]
            graced = clock.wait_for_arrival(game, waited_for, now) or clock.grant_grace(game, waited_for, now)
        if timer_due and not graced:
            made = _expire_turns(game, position, seats, now, events)
        if not made and bot_due:
            made = _play_one_bot_move(game, position, seats, now, events)
        if made:
            store.save_game(game, position, seats, now, events)
        elif graced:
            if bot_due:
                game.bot_due_at = None
            # The table is told, so every countdown shows the extra wait.
            store.save_game(game, position, seats, now, [], cache=False, schedule=False)
        else:
            # A time with nobody behind it (no human awaited, no bot to move): clear
            # it, so the beat sweep stops finding the game; a running clock stays.
            if timer_due:
                game.deadline = None
            if bot_due:
                game.bot_due_at = None
            game.save(update_fields=["deadline", "bot_due_at"])
        return made


def schedule_new_game(game: Game, position: engine.Game, now=None) -> None:
    """Right after a deal: set the first deadline / bot time and nudge a worker on commit."""
    store.save_game(game, position, store.game_seats(game), now or timezone.now(), [], cache=False, notify_table=False)


# ---------------------------------------------------------------- internals


def _own_seat(seats: dict[int, GameSeat], user) -> GameSeat:
    """`user`'s seat of the game, or the refusal every seat action gives someone not playing."""
    seat = next((s for s in seats.values() if user is not None and s.user_id == user.pk), None)
    if seat is None:
        raise MoveRefused(_("You are not playing in this game."))
    return seat


def _apply_move(game: Game, position: engine.Game, seats: dict, seat: GameSeat, action, source: str, now) -> list:
    """The one path of every move: the engine judges it, the log records it.

    Raises MoveRefused (the engine's refusal, translated), changing nothing. The caller
    saves the game with `store.save_game` once its moves are made.
    """
    try:
        action = engine.parse_action(action)
        events = position.act(seat.number, action)
    except engine.IllegalAction as refusal:
        raise from_engine(refusal) from None
    sql.insert_move(game.pk, game.move_count, seat.number, str(action), source)
    game.move_count += 1
    if position.is_over:
        _finish(game, position, seats, now)
    return events


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
        moved = _apply_move(game, position, seats, seat, action, Move.Source.TIMEOUT, now)
        events += [positions.timeout_event(number, action), *moved]
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


def counted_places(places: dict, abandoned: set, players: int) -> dict:
    """The places that count (`GameSeat.counted_place`, what ratings and standings rank by):
    a seat that abandoned (resigned, or three timeouts) is last, `players`, whatever its
    autopilot reached; every seat that played on ranks among those only (R19: one more
    than the number of them who left earlier), so it is strictly above every abandoned
    seat, the durak included. Without an abandoned seat these are the game's places."""
    finished = [p for s, p in places.items() if s not in abandoned and p is not None]
    counted = {}
    for seat, place in places.items():
        if seat in abandoned:
            counted[seat] = players
        elif place is not None:
            counted[seat] = 1 + sum(other < place for other in finished)
        else:
            counted[seat] = None
    return counted


def result_places(places: dict, counted: dict, abandoned: set, players: int) -> list[dict]:
    """A finished game's result, one row per seat of `places` (seat -> the place its cards
    reached), ranked as it counts: by the counted place (`counted`, as `_finish` stored it;
    by `counted_places` when one is missing), then by the place reached, then by seat.
    Row: seat, place (the one that counts), played_place (the place reached, where it
    differs), abandoned. The table's result panel and the record page both show these."""
    if any(counted.get(seat) is None for seat in places):
        counted = counted_places(places, abandoned, players)
    rows = [
        {
            "seat": seat,
            "place": counted.get(seat),
            "played_place": place if place != counted.get(seat) else None,
            "abandoned": seat in abandoned,
        }
        for seat, place in places.items()
    ]
    rows.sort(key=lambda r: (r["place"] is None, r["place"] or 0, places[r["seat"]] or 0, r["seat"]))
    return rows


def _finish(game: Game, position: engine.Game, seats: dict, now) -> None:
    """R19-R21 into the records ratings and standings read; abandoning is last place,
    below everyone who played on (`counted_places`)."""
    game.status = Game.Status.FINISHED
    game.finished_at = now
    game.result = position.result()
    played = {seat.number: position.places.get(seat.number) for seat in seats.values()}
    counted = counted_places(played, {seat.number for seat in seats.values() if seat.abandoned}, game.rules["players"])
    for seat in seats.values():
        seat.place = played[seat.number]
        seat.counted_place = counted[seat.number]
        seat.is_loser = seat.number in position.losers
        seat.save(update_fields=["place", "counted_place", "is_loser"])
    Table.objects.filter(pk=game.table_id).update(status=Table.Status.FINISHED, updated_at=now)
    game.table.status = Table.Status.FINISHED
