"""Reads: what pages and live tables show. No writes here."""

import threading

from django.contrib.auth import get_user_model
from django.db.models import Case, Count, IntegerField, Q, Value, When

from games.models import Game, GameSeat, Table, TableSeat


def display_name(user) -> str:
    return user.get_username() if user is not None else ""


def table_snapshot(table_id: int) -> dict | None:
    """A JSON-safe picture of a table and its current game, sent to every seat's
    consumer. It holds the full engine state: it never leaves the server; each
    consumer renders only its own seat's view of it."""
    table = Table.objects.filter(pk=table_id).select_related("host").first()
    if table is None:
        return None
    table_seats = list(table.seats.select_related("user"))
    game = table.games.order_by("-number").first()
    game_seats = list(game.seats.select_related("user")) if game is not None else []
    return snapshot_of(table, table_seats, game, game_seats)


def snapshot_of(table: Table, table_seats, game: Game | None, game_seats) -> dict:
    """`table_snapshot` built from rows already at hand (no query when the table's
    host and the seats' users are loaded): the play service sends it after a move."""
    seats = [
        {
            "number": s.number,
            "user_id": s.user_id,
            "name": display_name(s.user) if s.user_id else "",
            "bot_level": s.bot_level,
        }
        for s in table_seats
    ]
    game_data = None
    if game is not None:
        game_data = {
            "id": game.pk,
            "number": game.number,
            "status": game.status,
            "seed_hash": game.seed_hash,
            "seed": game.seed if game.is_over else None,
            "move_count": game.move_count,
            "state_json": game.state_json,
            "deadline": game.deadline.isoformat() if game.deadline else None,
            "turn_seconds": game.turn_seconds,
            "result": game.result,
            "seats": [
                {
                    "number": s.number,
                    "user_id": s.user_id,
                    "name": display_name(s.user) if s.user_id else "",
                    "bot_level": s.bot_level,
                    "autopilot": s.autopilot,
                    "abandoned": s.abandoned,
                    "place": s.place,
                }
                for s in game_seats
            ],
        }
    return {
        "table": {
            "id": table.pk,
            "status": table.status,
            "variant": table.variant,
            "rules": table.rules,
            "seats_count": table.seats_count,
            "turn_seconds": table.turn_seconds,
            "is_private": table.is_private,
            "rated": table.rated,
            "bot_level": table.bot_level,
            "host_id": table.host_id,
            "host_name": display_name(table.host),
        },
        "seats": seats,
        "game": game_data,
    }


# ------------------------------------------------------------ parsed positions

POSITION_CACHE_SIZE = 512
_positions: dict = {}
_positions_lock = threading.Lock()


def cached_position(state_json: str):
    """The engine position a `Game.state_json` text describes, parsed once per process.

    Keyed by the text itself (a position is a pure function of it), so a stale
    entry can never be returned. The object is SHARED: read it (`view`,
    `to_move`, `legal_actions` do not change it), or `.copy()` it to play on.
    Every seat's consumer renders the same snapshot: one parse serves them all.
    """
    position = _positions.get(state_json)
    if position is None:
        from games import engine

        position = engine.Game.from_json(state_json)
        remember_position(state_json, position)
    return position


def remember_position(state_json: str, position) -> None:
    """Put a position whose `to_json()` is `state_json` in the cache (it must not change after)."""
    with _positions_lock:
        _positions[state_json] = position
        while len(_positions) > POSITION_CACHE_SIZE:
            del _positions[next(iter(_positions))]


def lobby_tables(limit: int = 50):
    """Public tables people can join or watch, newest first."""
    return (
        Table.objects.filter(is_private=False)
        .exclude(status=Table.Status.CLOSED)
        .select_related("host")
        .prefetch_related("seats__user")
        .annotate(free_seats=Count("seats", filter=Q(seats__user__isnull=True, seats__bot_level="")))
        .annotate(
            status_order=Case(
                When(status=Table.Status.WAITING, then=Value(0)),
                When(status=Table.Status.PLAYING, then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            )
        )
        .order_by("status_order", "-created_at")[:limit]  # joinable tables first
    )


def seat_of(table_id: int, user) -> int | None:
    if user is None or not user.is_authenticated:
        return None
    return TableSeat.objects.filter(table_id=table_id, user=user).values_list("number", flat=True).first()


def player_stats(user) -> dict:
    seats = GameSeat.objects.filter(user=user, game__status=Game.Status.FINISHED)
    total = seats.count()
    wins = seats.filter(is_loser=False, game__result__draw=False).count()
    losses = seats.filter(is_loser=True).count()
    return {
        "played": total,
        "not_lost": wins,
        "lost": losses,
        "recent": seats.select_related("game", "game__table").order_by("-game__finished_at")[:20],
    }


def user_by_name(username: str):
    return get_user_model().objects.filter(username=username).first()


def tables_of(user, limit: int = 20):
    """Tables (public or private, not closed) where `user` holds a seat, newest first."""
    if user is None or not user.is_authenticated:
        return Table.objects.none()
    return (
        Table.objects.filter(pk__in=TableSeat.objects.filter(user=user).values("table_id"))
        .exclude(status=Table.Status.CLOSED)
        .select_related("host")
        .prefetch_related("seats__user")
        .annotate(free_seats=Count("seats", filter=Q(seats__user__isnull=True, seats__bot_level="")))
        .order_by("-updated_at")[:limit]
    )


def playing_game_id(table_id: int) -> int | None:
    """The game now being played at a table, if any."""
    return (
        Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING)
        .order_by("-number")
        .values_list("pk", flat=True)
        .first()
    )
