"""Reads of the games app that games.selectors lacks (contract 2: through
`apps.get_model`, never importing games.models)."""

from __future__ import annotations

from django.apps import apps

SEAT_FIELDS = ("number", "user_id", "team", "place", "counted_place", "is_loser", "abandoned")


def _game_model():
    return apps.get_model("games", "Game")


def _seat_model():
    return apps.get_model("games", "GameSeat")


def finished_game(game_id: int) -> dict | None:
    """A finished game's table and per-seat records, or None if it is not finished."""
    Game = _game_model()
    game = Game.objects.filter(pk=game_id, status="finished").values("pk", "table_id", "number", "finished_at").first()
    if game is None:
        return None
    seats = list(_seat_model().objects.filter(game_id=game_id).order_by("number").values(*SEAT_FIELDS))
    return {**game, "seats": seats}


def latest_games(table_ids) -> dict[int, dict]:
    """{table_id: {pk, number, status}} of the newest game at each table."""
    latest: dict[int, dict] = {}
    rows = _game_model().objects.filter(table_id__in=list(table_ids)).order_by("table_id", "number")
    for row in rows.values("pk", "table_id", "number", "status"):
        latest[row["table_id"]] = row
    return latest


def games_with_seats(game_ids) -> list[dict]:
    """Games (pk, table_id, number, variant, started_at, finished_at, seed_hash) with their seats, for exports."""
    games = list(
        _game_model()
        .objects.filter(pk__in=list(game_ids))
        .order_by("pk")
        .values("pk", "table_id", "number", "variant", "status", "started_at", "finished_at", "seed_hash")
    )
    seats: dict[int, list] = {}
    for row in _seat_model().objects.filter(game_id__in=[g["pk"] for g in games]).order_by("number"):
        seats.setdefault(row.game_id, []).append({f: getattr(row, f) for f in SEAT_FIELDS})
    for game in games:
        game["seats"] = seats.get(game["pk"], [])
    return games


def begun_tables(table_ids) -> set[int]:
    """Tables at which play has begun: a move made in the first game, or more than one game dealt."""
    begun: set[int] = set()
    counts: dict[int, int] = {}
    rows = _game_model().objects.filter(table_id__in=list(table_ids)).values("table_id", "move_count", "status")
    for row in rows:
        counts[row["table_id"]] = counts.get(row["table_id"], 0) + 1
        if row["move_count"] or row["status"] != "playing":
            begun.add(row["table_id"])
    return begun | {pk for pk, n in counts.items() if n > 1}
