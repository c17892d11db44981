"""Reads: what pages, live tables, workers and other apps read. No writes here.

Engine positions (deal, replay, the per-process cache, the fairness check) are
read through `games.positions`.
"""

from django.contrib.auth import get_user_model
from django.db.models import Case, Count, IntegerField, Q, Value, When
from django.utils import timezone

from games.models import ChatMessage, Game, GameSeat, Table, TableSeat

CHAT_HISTORY = 50


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


def due_game_ids(now=None) -> list[int]:
    """Games with an expired timer or a bot whose pause is over (for the beat sweep)."""
    now = now or timezone.now()
    return list(
        Game.objects.filter(status=Game.Status.PLAYING)
        .filter(Q(deadline__lte=now) | Q(bot_due_at__lte=now))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def chat_message_data(message: ChatMessage) -> dict:
    """JSON-safe form of a chat message, as the channel layer carries it."""
    return {
        "id": message.pk,
        "name": message.name,
        "text": message.text,
        "created_at": message.created_at.isoformat(),
    }


def recent_chat(table_id: int, limit: int = CHAT_HISTORY) -> list[dict]:
    """The table's last `limit` chat messages, oldest first."""
    messages = ChatMessage.objects.filter(table_id=table_id).order_by("-created_at", "-pk")[:limit]
    return [chat_message_data(m) for m in reversed(messages)]
