"""Reads: what pages, live tables, workers and other apps read. No writes here.

Engine positions (deal, replay, the per-process cache, the fairness check) are
read through `games.positions`.
"""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Case, Count, F, IntegerField, Q, Value, When
from django.utils import timezone

from games.models import ChatMessage, Game, GameSeat, Move, Table, TableSeat
from games.names import NAME_KEY_LENGTH, name_key

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
    table_seats = list(table.seats.select_related("user__profile"))
    game = table.games.order_by("-number").first()
    game_seats = list(game.seats.select_related("user__profile")) if game is not None else []
    offline = {str(s.user_id): s.offline_since.isoformat() for s in table_seats if s.user_id and s.offline_since}
    return snapshot_of(table, table_seats, game, game_seats, offline=offline)


def snapshot_of(table: Table, table_seats, game: Game | None, game_seats, offline: dict | None = None) -> dict:
    """`table_snapshot` built from rows already at hand (no query when the table's
    host and the seats' users are loaded): the play service sends it after a move.

    `offline` {str(user id): ISO time}: the seats' players who have closed their table
    socket, and since when (`TableSeat.offline_since`). Left out (None) by the play
    service, which does not read it: a live table keeps the one it last had (a move
    changes nobody's presence; `games.services.presence` sends a snapshot with it)."""
    seats = [
        {
            "number": s.number,
            "user_id": s.user_id,
            "name": display_name(s.user) if s.user_id else "",
            "bot_level": s.bot_level,
            "ready": getattr(s, "ready", False),  # (a game's seats stand in for the table's during a game)
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
                    "counted_place": s.counted_place,
                }
                for s in game_seats
            ],
        }
    snapshot = {
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
            "rematch": table.rematch,
            "managed_by_event": table.managed_by_event,
            "host_id": table.host_id,
            "host_name": display_name(table.host),
        },
        "seats": seats,
        "game": game_data,
    }
    if offline is not None:
        snapshot["offline"] = offline
    addresses = addresses_of([s.user for s in (*table_seats, *game_seats) if s.user_id])
    if addresses is not None:
        snapshot["addresses"] = addresses
    return snapshot


def address_of(user) -> str:
    """How the player asked to be spoken of (Profile.address, games.wording); "" when he did not."""
    return getattr(getattr(user, "profile", None), "address", "") if user is not None else ""


def addresses_of(users) -> dict[str, str] | None:
    """{str(user id): Profile.address} of users whose profiles are loaded with them, or None
    when one is not (the move path reads no profile: a live table keeps the addresses it
    last had, as it keeps who is offline; a game's players do not change)."""
    found = {}
    for user in users:
        if not _profile_cached(user):
            return None
        found[str(user.pk)] = address_of(user)
    return found


def _profile_cached(user) -> bool:
    try:
        return type(user).profile.is_cached(user)  # loaded by select_related (even as "none")
    except AttributeError:
        return False


def lobby_tables(limit: int = 50):
    """Public tables people can join or watch, newest first: waiting or playing
    (a finished table's games belong to the history)."""
    return (
        Table.objects.filter(is_private=False, status__in=[Table.Status.WAITING, Table.Status.PLAYING])
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


def user_by_name(username: str):
    return get_user_model().objects.filter(username=username).first()


def player_by_typed_name(typed: str):
    """The player whose name someone typed: the exact name, else the one name equal to it
    in any case and width ("олег" is "Олег", on SQLite too, whose own case folding is
    ASCII only): the `Profile.name_key` that sign-up keeps unique. None when none is."""
    typed = (typed or "").strip()
    if not typed:
        return None
    exact = user_by_name(typed)
    if exact is not None:
        return exact
    key = name_key(typed)[:NAME_KEY_LENGTH]
    return get_user_model().objects.filter(profile__name_key=key).first()


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


def invite_token_for(table_id: int, user) -> str | None:
    """A private table's invite token, for its host only (None for anyone else)."""
    if user is None or not user.is_authenticated:
        return None
    return (
        Table.objects.filter(pk=table_id, is_private=True, host=user)
        .exclude(status=Table.Status.CLOSED)
        .values_list("invite_token", flat=True)
        .first()
    )


# ------------------------------------------------------- the player's evening (issue 10)


def player_record(user) -> dict:
    """A player's finished games as they count: won, draws, lost (the durak or the losing
    side), and left (resigned or timed out: counted as last, so also lost), overall and
    per variant. Every game is exactly one of won, draw or lost."""
    seats = GameSeat.objects.filter(user=user, game__status=Game.Status.FINISHED)
    rows = seats.values("game__variant").annotate(
        played=Count("pk"),
        left=Count("pk", filter=Q(abandoned=True)),
        draws=Count("pk", filter=Q(abandoned=False, game__result__draw=True)),
        lost=Count("pk", filter=Q(abandoned=True) | Q(is_loser=True)),
    )
    per_variant = []
    totals = {"played": 0, "won": 0, "draws": 0, "lost": 0, "left": 0}
    for row in sorted(rows, key=lambda r: r["game__variant"]):
        figures = {
            "variant": row["game__variant"],
            "played": row["played"],
            "draws": row["draws"],
            "lost": row["lost"],
            "left": row["left"],
            "won": row["played"] - row["draws"] - row["lost"],
        }
        per_variant.append(figures)
        for key in totals:
            totals[key] += figures[key]
    return {
        **totals,
        "per_variant": per_variant,
        "recent": seats.select_related("game", "game__table").order_by("-game__finished_at")[:20],
    }


def running_tables_of(user, limit: int = 20):
    """The tables where `user` sits that are still going (waiting for players or playing),
    newest first: the lobby's "your tables". Finished games are in his profile's history."""
    if user is None or not user.is_authenticated:
        return Table.objects.none()
    return (
        Table.objects.filter(pk__in=TableSeat.objects.filter(user=user).values("table_id"))
        .filter(status__in=[Table.Status.WAITING, Table.Status.PLAYING])
        .select_related("host")
        .prefetch_related("seats__user")
        .annotate(free_seats=Count("seats", filter=Q(seats__user__isnull=True, seats__bot_level="")))
        .order_by("-updated_at")[:limit]
    )


def idle_table_ids(*, waiting_before, playing_before) -> dict:
    """Tables nobody will finish: waiting ones untouched since `waiting_before`, and games
    without a turn timer whose last move (or deal) is older than `playing_before` while
    a person's seat is awaited. The periodic job closes the first and ends the second."""
    waiting = list(
        Table.objects.filter(status=Table.Status.WAITING, updated_at__lt=waiting_before)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    stale_games = []
    candidates = Game.objects.filter(
        status=Game.Status.PLAYING, turn_seconds__isnull=True, started_at__lt=playing_before
    )
    for game in candidates.order_by("pk").only("pk", "started_at"):
        last_move = game.moves.order_by("-number").values_list("created_at", flat=True).first()
        if (last_move or game.started_at) < playing_before:
            stale_games.append(game.pk)
    return {"waiting": waiting, "games": stale_games}


# ------------------------------------------------------------ game reviews (issue 12)


def finished_game_log(game_id: int) -> dict | None:
    """A finished game as other apps replay it: its variant, the seats' users, the
    position after the deal (an engine position, theirs to play on) and the move log
    `[(number, seat, action, source)]`. None for a game being played (its seed is
    secret until the end) or a missing one."""
    from games import positions

    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None:
        return None
    return {
        "id": game.pk,
        "variant": game.variant,
        "seats": {s.number: s.user_id for s in game.seats.all()},
        "first_position": positions.deal_of(game),
        "moves": list(game.moves.order_by("number").values_list("number", "seat", "action", "source")),
    }


def users_with_running_tables(user_ids) -> set[int]:
    """Which of `user_ids` sit at a table still going (the lobby's "your tables" of each)."""
    return set(
        TableSeat.objects.filter(
            user_id__in=list(user_ids), table__status__in=[Table.Status.WAITING, Table.Status.PLAYING]
        ).values_list("user_id", flat=True)
    )


# ------------------------------------------- the read API of the other apps (issue 21)
# Ratings, tournaments and reviews read games only through these functions, which
# return plain data (ids, dicts, tuples), and compare with the enums of games.choices.

RECORD_SEAT_FIELDS = ("number", "user_id", "team", "place", "counted_place", "is_loser", "abandoned", "berserk")


def finished_game(game_id: int) -> dict | None:
    """A finished game's table and per-seat records, or None if it is not finished."""
    game = (
        Game.objects.filter(pk=game_id, status=Game.Status.FINISHED)
        .values("pk", "table_id", "number", "finished_at")
        .first()
    )
    if game is None:
        return None
    seats = list(GameSeat.objects.filter(game_id=game_id).order_by("number").values(*RECORD_SEAT_FIELDS))
    return {**game, "seats": seats}


def latest_games(table_ids) -> dict[int, dict]:
    """{table_id: {pk, number, status}} of the newest game at each table."""
    latest: dict[int, dict] = {}
    rows = Game.objects.filter(table_id__in=list(table_ids)).order_by("table_id", "number")
    for row in rows.values("pk", "table_id", "number", "status"):
        latest[row["table_id"]] = row
    return latest


def games_with_seats(game_ids) -> list[dict]:
    """Games (pk, table_id, number, variant, started_at, finished_at, seed_hash) with their seats, for exports."""
    games = list(
        Game.objects.filter(pk__in=list(game_ids))
        .order_by("pk")
        .values("pk", "table_id", "number", "variant", "status", "started_at", "finished_at", "seed_hash")
    )
    seats: dict[int, list] = {}
    for row in GameSeat.objects.filter(game_id__in=[g["pk"] for g in games]).order_by("number"):
        seats.setdefault(row.game_id, []).append({f: getattr(row, f) for f in RECORD_SEAT_FIELDS})
    for game in games:
        game["seats"] = seats.get(game["pk"], [])
    return games


def begun_tables(table_ids) -> set[int]:
    """Tables at which play has begun: a move made in the first game, or more than one game dealt."""
    begun: set[int] = set()
    counts: dict[int, int] = {}
    rows = Game.objects.filter(table_id__in=list(table_ids)).values("table_id", "move_count", "status")
    for row in rows:
        counts[row["table_id"]] = counts.get(row["table_id"], 0) + 1
        if row["move_count"] or row["status"] != Game.Status.PLAYING:
            begun.add(row["table_id"])
    return begun | {pk for pk, n in counts.items() if n > 1}


def game_table_id(game_id: int) -> int | None:
    """The table a game is played at, or None (no such game)."""
    return Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()


def player_seat_state(game_id: int, user_id: int) -> dict | None:
    """{number, berserk, moved} of `user_id`'s seat in a game (moved: any move made at his
    seat, his own or his timer's), or None when he does not play in it."""
    seat = GameSeat.objects.filter(game_id=game_id, user_id=user_id).values("number", "berserk").first()
    if seat is None:
        return None
    moved = Move.objects.filter(game_id=game_id, seat=seat["number"]).exists()
    return {**seat, "moved": moved}


def playing_game(table_id: int) -> dict | None:
    """{pk, started_at} of the game being played at a table, or None."""
    return (
        Game.objects.filter(table_id=table_id, status=Game.Status.PLAYING)
        .order_by("-number")
        .values("pk", "started_at")
        .first()
    )


def tables_playing(table_ids) -> set[int]:
    """Which of `table_ids` have a game being played."""
    return set(
        Game.objects.filter(table_id__in=list(table_ids), status=Game.Status.PLAYING).values_list("table_id", flat=True)
    )


def seat_numbers_by_user(table_id: int) -> dict[int, int]:
    """{user_id: seat number} of the people seated at a table."""
    return dict(TableSeat.objects.filter(table_id=table_id, user_id__isnull=False).values_list("user_id", "number"))


def users_who_came(table_id: int) -> set[int]:
    """Users who have come to a table: its live socket was opened from their seat
    (`TableSeat.seen_at`), or they made a move of their own there."""
    seen = TableSeat.objects.filter(table_id=table_id, seen_at__isnull=False).values_list("user_id", flat=True)
    moved = (
        GameSeat.objects.filter(game__table_id=table_id, user_id__isnull=False)
        .filter(game__moves__source=Move.Source.PLAYER, game__moves__seat=F("number"))
        .values_list("user_id", flat=True)
    )
    return set(seen) | set(moved)


def timed_out_players(game_ids) -> set[tuple[int, int]]:
    """(game_id, user_id) of the people whose time ran out at their own seat in one
    of `game_ids`, leaving it to the autopilot."""
    return set(
        GameSeat.objects.filter(game_id__in=list(game_ids), abandoned=True, user_id__isnull=False)
        .filter(game__moves__source=Move.Source.TIMEOUT, game__moves__seat=F("number"))
        .values_list("game_id", "user_id")
    )


def finished_seat_of(game_id: int, user) -> int | None:
    """The seat `user` played in finished game `game_id`, or None (not a player, not over)."""
    if user is None or not user.is_authenticated:
        return None
    return (
        GameSeat.objects.filter(game_id=game_id, user=user, game__status=Game.Status.FINISHED)
        .values_list("number", flat=True)
        .first()
    )


def game_lineup(game_id: int) -> dict | None:
    """{variant, rated, seats: [(number, user_id, bot_level, team)] by number}, or None."""
    game = Game.objects.filter(pk=game_id).values("variant", "rated").first()
    if game is None:
        return None
    seats = GameSeat.objects.filter(game_id=game_id).order_by("number")
    return {**game, "seats": list(seats.values_list("number", "user_id", "bot_level", "team"))}


def records_visible_to(game_ids, user) -> set[int]:
    """Which of `game_ids` `user` may open the record of (`permissions.may_see_record`)."""
    from games import permissions

    games = Game.objects.filter(pk__in=list(game_ids)).select_related("table")
    return {game.pk for game in games if permissions.may_see_record(game, user)}


def rating_facts(game_id: int) -> dict | None:
    """{variant, rated, status, finished_at, is_private} of a game, or None."""
    game = (
        Game.objects.filter(pk=game_id).values("variant", "rated", "status", "finished_at", "table__is_private").first()
    )
    if game is not None:
        game["is_private"] = game.pop("table__is_private")
    return game


def _rated_games(variant: str):
    """A variant's games that count for the ratings: finished, rated, and not at a
    private table (private tables are never rated, docs/ratings.md: also a game dealt
    while that was still allowed)."""
    return Game.objects.filter(
        variant=variant, rated=True, status=Game.Status.FINISHED, finished_at__isnull=False, table__is_private=False
    )


def rated_games(variant: str, *, exclude_ids=None, upto: tuple | None = None, limit: int | None = None) -> list[tuple]:
    """(id, finished_at) of the variant's games that count for the ratings, in finishing
    order: without the ids in `exclude_ids` (ids or a values queryset, kept a subquery),
    up to `upto` = (finished_at, id) included, at most `limit`.

    On PostgreSQL the rows come through psycopg's own compiled timestamptz loader
    (the same aware UTC datetimes): the one Django registers is written in Python
    and took 0.2 s of this process per 50,000 games, the compiled one 0.02 s."""
    rows = _rated_games(variant)
    if exclude_ids is not None:
        rows = rows.exclude(id__in=exclude_ids)
    if upto is not None:
        finished_at, game_id = upto
        rows = rows.filter(Q(finished_at__lt=finished_at) | Q(finished_at=finished_at, id__lte=game_id))
    rows = rows.order_by("finished_at", "id").values_list("id", "finished_at")
    if limit is not None:
        rows = rows[:limit]
    if connection.vendor != "postgresql":
        return list(rows)
    from psycopg.types.datetime import TimestamptzLoader

    sql, params = rows.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.cursor.adapters.register_loader("timestamptz", TimestamptzLoader)  # this cursor only
        cursor.execute(sql, params)
        return cursor.fetchall()


def rated_seat_values(variant: str, fields):
    """The GameSeat `fields` (names as `values_list` takes them) of every seat of the
    variant's games that count for the ratings, straight from a cursor: hundreds of
    thousands of rows of plain integers and strings, which the ORM's per-row
    conversion would only copy (a fifth of a rating recomputation's reading)."""
    quote = connection.ops.quote_name

    def column(model, name):
        return quote(model._meta.get_field(name).column)

    columns = ", ".join(f"s.{column(GameSeat, name.removesuffix('_id'))}" for name in fields)
    sql = (
        f"SELECT {columns} FROM {quote(GameSeat._meta.db_table)} s"
        f" JOIN {quote(Game._meta.db_table)} g ON g.{quote(Game._meta.pk.column)} = s.{column(GameSeat, 'game')}"
        f" JOIN {quote(Table._meta.db_table)} t ON t.{quote(Table._meta.pk.column)} = g.{column(Game, 'table')}"
        f" WHERE g.{column(Game, 'variant')} = %s AND g.{column(Game, 'rated')} = %s"
        f" AND g.{column(Game, 'status')} = %s AND g.{column(Game, 'finished_at')} IS NOT NULL"
        f" AND t.{column(Table, 'is_private')} = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [variant, True, Game.Status.FINISHED.value, False])
        while rows := cursor.fetchmany(20000):
            yield from rows


SEAT_CHUNK = 500


def seat_values(game_ids, fields) -> list[tuple]:
    """The GameSeat `fields` of the seats of `game_ids` (read a few hundred games at a time)."""
    ids = list(game_ids)
    rows: list[tuple] = []
    for start in range(0, len(ids), SEAT_CHUNK):
        rows += GameSeat.objects.filter(game_id__in=ids[start : start + SEAT_CHUNK]).values_list(*fields)
    return rows


def emote_mutes(table_id: int, user_id: int | None) -> dict:
    """Whether `user_id` sees no emotes at `table_id` ("table") or anywhere ("everywhere"),
    and whether he holds a seat there (only a seat mutes them at one table)."""
    if user_id is None:
        return {"table": False, "everywhere": False, "seated": False}
    seat = TableSeat.objects.filter(table_id=table_id, user_id=user_id).values_list("emotes_muted", flat=True).first()
    everywhere = get_user_model().objects.filter(pk=user_id, profile__emotes_muted=True).exists()
    return {"table": bool(seat), "everywhere": everywhere, "seated": seat is not None}


# ------------------------------------------------------- who is here (issue 17, friends)

RECENTLY_AT_A_TABLE_MINUTES = 5  # a player who closed his table less than this ago counts as just here
OPEN_SOCKET_TRUSTED_HOURS = 6  # an open-socket mark older than this is a server that died, not a player


def players_present(user_ids, now=None) -> dict[int, str]:
    """{user id: "online" | "recent"} of those of `user_ids` who are at the club now.

    "online": a table socket of his is open (a seat he came to, `TableSeat.seen_at`,
    that he has not closed since, `TableSeat.offline_since` empty, at a table in use
    lately); "recent": he closed one in the last few minutes. The table sockets are
    the only presence the site records (no request writes a "last seen"), so a
    player on other pages only is not seen."""
    ids = [int(i) for i in user_ids if i is not None]
    if not ids:
        return {}
    now = now or timezone.now()
    seats = TableSeat.objects.filter(user_id__in=ids, seen_at__isnull=False).exclude(table__status=Table.Status.CLOSED)
    online = set(
        seats.filter(
            offline_since__isnull=True, table__updated_at__gte=now - timedelta(hours=OPEN_SOCKET_TRUSTED_HOURS)
        ).values_list("user_id", flat=True)
    )
    recent = set(
        TableSeat.objects.filter(
            user_id__in=ids, offline_since__gte=now - timedelta(minutes=RECENTLY_AT_A_TABLE_MINUTES)
        ).values_list("user_id", flat=True)
    )
    return {**dict.fromkeys(recent - online, "recent"), **dict.fromkeys(online, "online")}


def closed_table_ids(table_ids) -> set[int]:
    """Which of these tables are closed (their last person left, or nobody came back): an
    invitation to one of them leads nowhere."""
    return set(Table.objects.filter(pk__in=list(table_ids), status=Table.Status.CLOSED).values_list("pk", flat=True))


def private_table_to_invite_to(user) -> dict | None:
    """The private table `user` hosts that a friend may be invited to (the newest one
    waiting for players or being played), with its invite token; None when he has none."""
    if user is None or not user.is_authenticated:
        return None
    row = (
        Table.objects.filter(host=user, is_private=True, status__in=[Table.Status.WAITING, Table.Status.PLAYING])
        .order_by("-created_at")
        .values("id", "invite_token")
        .first()
    )
    return {"id": row["id"], "invite_token": row["invite_token"]} if row else None
