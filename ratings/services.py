"""Writes: applying rated games to the ratings, one transaction each.

- `rate_game(game_id)` brings the game's variant up to date up to that game:
  every earlier finished rated game of the variant not yet applied is applied
  first, in the order the games finished (finished_at, then id). Applying a
  game twice changes nothing (`RatedGame` marks it). If a game turns up that
  finished before games already applied (a late commit), the variant is
  recomputed from scratch, so the order stays exact.
- `recompute(variant)` rebuilds the variant's ratings from scratch.

Both take the variant's `VariantState` row lock first: two workers never
interleave one variant's games, while the other variant goes on in parallel.
The rows are read in bulk, the ratings computed in memory (`ratings.ledger`,
the same code for both paths) and written back in bulk.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from celery import current_app
from django.apps import apps
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from ratings import model as rating_model
from ratings import selectors
from ratings.ledger import GameRow, Ledger, SeatRow, Standing
from ratings.models import PairRating, RatedGame, Rating, RatingChange, Variant, VariantState

log = logging.getLogger(__name__)

VARIANTS = tuple(Variant.values)
FINISHED = "finished"  # games.models.Game.Status.FINISHED (contract 2: no import of games.models)
CHUNK = 500
RECOMPUTE_TASK = "ratings.tasks.recompute"
RATE_TASK = "ratings.tasks.rate_game"
RECOMPUTE_HOUR = 4  # the nightly full recomputation, server time (editable in the admin)


def queue_for(variant: str) -> str:
    """The Celery queue of a variant's rating work (contract 6)."""
    return f"ratings-{variant}"


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")


def _games_model():
    return apps.get_model("games", "Game")


def _seats_model():
    return apps.get_model("games", "GameSeat")


def _lock(variant: str) -> VariantState:
    """Take the variant's writer lock (inside the caller's transaction).

    The UPDATE comes first: on SQLite it takes the write lock before anything is
    read (a read first would start from a snapshot another writer may change);
    on PostgreSQL it locks the row like select_for_update.
    """
    VariantState.objects.get_or_create(variant=variant)
    VariantState.objects.filter(variant=variant).update(touched_at=timezone.now())
    return VariantState.objects.select_for_update().get(variant=variant)


def _rated_games(variant: str):
    return _games_model().objects.filter(variant=variant, rated=True, status=FINISHED, finished_at__isnull=False)


def _seat_rows(values) -> dict[int, list[SeatRow]]:
    by_game: dict[int, list[SeatRow]] = {}
    for game_id, number, user_id, bot_level, team, counted_place in values:
        by_game.setdefault(game_id, []).append(SeatRow(number, user_id, bot_level, team, counted_place))
    return by_game


SEAT_FIELDS = ("game_id", "number", "user_id", "bot_level", "team", "counted_place")


MARK_FIELDS = ("game", "variant", "finished_at", "seq")
CHANGE_FIELDS = (
    "game",
    "user",
    "variant",
    "seq",
    "seat",
    "place",
    "finished_at",
    "mu_before",
    "sigma_before",
    "mu_after",
    "sigma_after",
    "display_before",
    "display_after",
)
INSERT_BATCH = 5000


def _insert(model, field_names, rows: list[tuple]) -> None:
    """Many rows in few statements: the history of a recomputation is hundreds of
    thousands of rows, and model instances plus bulk_create's per-query parameter
    cap (999 on SQLite) would cost more than the rating itself. Values must be
    ready for the database (datetimes adapted by the caller)."""
    if not rows:
        return
    columns = [model._meta.get_field(name).column for name in field_names]
    quote = connection.ops.quote_name
    table, column_list = quote(model._meta.db_table), ", ".join(quote(c) for c in columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY: one stream instead of a round trip per row (psycopg 3's cursor.copy).
            with cursor.copy(f"COPY {table} ({column_list}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        sql = f"INSERT INTO {table} ({column_list}) VALUES ({', '.join(['%s'] * len(columns))})"
        for start in range(0, len(rows), INSERT_BATCH):
            cursor.executemany(sql, rows[start : start + INSERT_BATCH])


def _compute(
    variant: str,
    ledger: Ledger,
    games: list[GameRow],
    first_seq: int,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[tuple], list[tuple], int]:
    """Apply `games` in order on the ledger: the RatedGame and RatingChange rows, and the last seq."""
    # (rating_model.display_rating, inlined: it runs twice per seat of every game)
    alpha, target = rating_model.DISPLAY_ALPHA, rating_model.DISPLAY_TARGET
    adapt = connection.ops.adapt_datetimefield_value
    changes: list[tuple] = []
    marks: list[tuple] = []
    seq = first_seq
    total = len(games)
    for done, game in enumerate(games, 1):
        seq += 1
        finished_at = adapt(game.finished_at)
        marks.append((game.game_id, variant, finished_at, seq))
        for user_id, seat, place, mu0, sigma0, mu1, sigma1 in ledger.apply(game):
            changes.append(
                (
                    game.game_id,
                    user_id,
                    variant,
                    seq,
                    seat,
                    place,
                    finished_at,
                    mu0,
                    sigma0,
                    mu1,
                    sigma1,
                    round(alpha * (mu0 - 3.0 * sigma0) + target),
                    round(alpha * (mu1 - 3.0 * sigma1) + target),
                )
            )
        if progress is not None and (done % 5000 == 0 or done == total):
            progress(done, total)
    return marks, changes, seq


def _store(
    variant: str,
    ledger: Ledger,
    marks: list[tuple],
    changes: list[tuple],
    existing_players: dict[int, int],
    existing_pairs: dict[tuple[int, int], int],
    clock=None,
) -> None:
    """Write what `_compute` produced: the marks, the history, the touched ratings."""
    _insert(RatedGame, MARK_FIELDS, marks)
    _insert(RatingChange, CHANGE_FIELDS, changes)
    if clock:
        clock.lap("write changes")

    new_ratings, updated_ratings = [], []
    for user_id in ledger.touched_players:
        st = ledger.players[user_id]
        row = Rating(
            user_id=user_id, variant=variant, mu=st.mu, sigma=st.sigma, games=st.games, last_played=st.last_played
        )
        if user_id in existing_players:
            row.pk = existing_players[user_id]
            updated_ratings.append(row)
        else:
            new_ratings.append(row)
    Rating.objects.bulk_create(new_ratings, batch_size=2000)
    Rating.objects.bulk_update(updated_ratings, ["mu", "sigma", "games", "last_played"], batch_size=500)

    new_pairs, updated_pairs = [], []
    for key in ledger.touched_pairs:
        st = ledger.pairs[key]
        row = PairRating(
            first_id=key[0],
            second_id=key[1],
            variant=variant,
            mu=st.mu,
            sigma=st.sigma,
            games=st.games,
            last_played=st.last_played,
        )
        if key in existing_pairs:
            row.pk = existing_pairs[key]
            updated_pairs.append(row)
        else:
            new_pairs.append(row)
    PairRating.objects.bulk_create(new_pairs, batch_size=2000)
    PairRating.objects.bulk_update(updated_pairs, ["mu", "sigma", "games", "last_played"], batch_size=500)
    touched = list(ledger.touched_players)
    transaction.on_commit(lambda: selectors.forget(variant, touched))
    if clock:
        clock.lap("write ratings")


def _read_all(variant: str) -> list[GameRow]:
    """Every finished rated game of the variant with its seats, in finishing order (two queries)."""
    order = list(_rated_games(variant).order_by("finished_at", "id").values_list("id", "finished_at"))
    seats = _seat_rows(_all_seat_values(variant))
    return [GameRow(game_id, finished_at, seats.get(game_id, [])) for game_id, finished_at in order]


def _all_seat_values(variant: str):
    """The SEAT_FIELDS of every seat of the variant's finished rated games, straight from a
    cursor: hundreds of thousands of rows of plain integers and strings, which the
    ORM's per-row conversion would only copy (a fifth of a recomputation's reading)."""
    Seat, Game = _seats_model(), _games_model()
    quote = connection.ops.quote_name

    def column(model, name):
        return quote(model._meta.get_field(name).column)

    fields = ", ".join(f"s.{column(Seat, name.removesuffix('_id'))}" for name in SEAT_FIELDS)
    sql = (
        f"SELECT {fields} FROM {quote(Seat._meta.db_table)} s"
        f" JOIN {quote(Game._meta.db_table)} g ON g.{quote(Game._meta.pk.column)} = s.{column(Seat, 'game')}"
        f" WHERE g.{column(Game, 'variant')} = %s AND g.{column(Game, 'rated')} = %s"
        f" AND g.{column(Game, 'status')} = %s AND g.{column(Game, 'finished_at')} IS NOT NULL"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [variant, True, FINISHED])
        while rows := cursor.fetchmany(20000):
            yield from rows


def _replace_all(variant: str, state: VariantState, games, ledger, marks, changes, seq, clock) -> None:
    """Inside the lock: the variant's rows become exactly the computed ones."""
    RatingChange.objects.filter(variant=variant).delete()
    RatedGame.objects.filter(variant=variant).delete()
    Rating.objects.filter(variant=variant).delete()
    PairRating.objects.filter(variant=variant).delete()
    clock.lap("delete")
    _store(variant, ledger, marks, changes, {}, {}, clock)
    _save_state(state, seq, games[-1] if games else None, recomputed=True)


def _rebuild(variant: str, state: VariantState) -> int:
    """Recompute inside the lock already held (a game arrived out of order)."""
    clock = _Clock(None)
    games = _read_all(variant)
    ledger = Ledger()
    marks, changes, seq = _compute(variant, ledger, games, 0)
    _replace_all(variant, state, games, ledger, marks, changes, seq, clock)
    return len(games)


class _Clock:
    """Seconds per phase into `timings` (the benchmark's breakdown); free when None."""

    def __init__(self, timings: dict | None):
        self.timings = timings
        self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        if self.timings is not None:
            now = time.perf_counter()
            self.timings[name] = self.timings.get(name, 0.0) + now - self.last
            self.last = now


def _save_state(state: VariantState, seq: int, last: GameRow | None, *, recomputed: bool = False) -> None:
    state.last_seq = seq
    if last is not None:
        state.last_finished_at, state.last_game_id = last.finished_at, last.game_id
    elif recomputed:
        state.last_finished_at, state.last_game_id = None, None
    if recomputed:
        state.recomputed_at = timezone.now()
    state.save()


def recompute(variant: str, *, progress: Callable[[int, int], None] | None = None, timings: dict | None = None) -> int:
    """Rebuild a variant's ratings from every finished rated game, in finishing order.

    Returns the number of games applied. `progress(done, total)` is called now and then.
    The games are read and rated before the variant's lock is taken (on SQLite the
    lock is the database's one write lock, which the tables' moves need too); under
    the lock the rows are replaced, and games that finished meanwhile are applied
    after them as `rate_game` would.
    """
    _check_variant(variant)
    clock = _Clock(timings)
    games = _read_all(variant)
    clock.lap("read")
    ledger = Ledger()
    marks, changes, seq = _compute(variant, ledger, games, 0, progress)
    clock.lap("compute")
    with transaction.atomic():
        state = _lock(variant)
        _replace_all(variant, state, games, ledger, marks, changes, seq, clock)
        late = _catch_up(variant, state)
    clock.lap("commit")
    log.info("ratings of %s recomputed from %d games", variant, len(games) + late)
    return len(games) + late


do_recompute = recompute


def rate_game(game_id: int) -> int:
    """Bring the game's variant up to date up to this game; return how many games were applied."""
    game = _games_model().objects.filter(pk=game_id).values("variant", "rated", "status", "finished_at").first()
    if game is None or not game["rated"] or game["status"] != FINISHED or game["finished_at"] is None:
        return 0
    variant = game["variant"]
    if variant not in VARIANTS:
        return 0
    if RatedGame.objects.filter(game_id=game_id).exists():
        return 0
    with transaction.atomic():
        state = _lock(variant)
        return _catch_up(variant, state, upto=(game["finished_at"], game_id))


def _catch_up(variant: str, state: VariantState, upto: tuple | None = None) -> int:
    """Inside the lock: apply the variant's finished rated games not applied yet
    (up to `upto` = (finished_at, game id), or all), in finishing order."""
    pending_qs = _rated_games(variant).exclude(id__in=RatedGame.objects.filter(variant=variant).values("game_id"))
    if upto is not None:
        finished_at, game_id = upto
        pending_qs = pending_qs.filter(Q(finished_at__lt=finished_at) | Q(finished_at=finished_at, id__lte=game_id))
    pending = list(pending_qs.order_by("finished_at", "id").values_list("id", "finished_at"))
    if not pending:
        return 0
    first_id, first_at = pending[0]
    if state.last_finished_at is not None and (first_at, first_id) < (state.last_finished_at, state.last_game_id):
        # A game finished before one already applied: only a rebuild keeps the order exact.
        log.warning("game %s of %s arrived out of order: recomputing", first_id, variant)
        _rebuild(variant, state)
        return len(pending)
    ids = [game_id for game_id, _ in pending]
    seats: dict[int, list[SeatRow]] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        seats.update(_seat_rows(_seats_model().objects.filter(game_id__in=chunk).values_list(*SEAT_FIELDS)))
    games = [GameRow(gid, when, seats.get(gid, [])) for gid, when in pending]
    user_ids = {s.user_id for g in games for s in g.seats if s.user_id is not None}
    players, existing_players = {}, {}
    for pk, user_id, mu, sigma, count, last in Rating.objects.filter(variant=variant, user_id__in=user_ids).values_list(
        "pk", "user_id", "mu", "sigma", "games", "last_played"
    ):
        players[user_id] = Standing(mu, sigma, count, last)
        existing_players[user_id] = pk
    pairs, existing_pairs = {}, {}
    for pk, first, second, mu, sigma, count, last in PairRating.objects.filter(
        variant=variant, first_id__in=user_ids, second_id__in=user_ids
    ).values_list("pk", "first_id", "second_id", "mu", "sigma", "games", "last_played"):
        pairs[(first, second)] = Standing(mu, sigma, count, last)
        existing_pairs[(first, second)] = pk
    ledger = Ledger(players, pairs)
    marks, changes, seq = _compute(variant, ledger, games, state.last_seq)
    _store(variant, ledger, marks, changes, existing_players, existing_pairs)
    _save_state(state, seq, games[-1])
    return len(games)


do_rate_game = rate_game


# ------------------------------------------------------------------ Celery


def enqueue_rate_game(game_id: int, variant: str) -> None:
    """Nudge the variant's ratings worker (contract 6); never raises into the caller."""
    try:
        current_app.send_task(RATE_TASK, args=[game_id], queue=queue_for(variant))
    except Exception:  # the periodic recomputation (and the next game's task) catches up
        log.exception("could not enqueue the rating of game %s", game_id)


def enqueue_recompute(variant: str) -> None:
    _check_variant(variant)
    current_app.send_task(RECOMPUTE_TASK, args=[variant], queue=queue_for(variant))


def schedule_name(variant: str) -> str:
    return f"ratings: recompute {variant}"


def ensure_schedule(PeriodicTask=None, CrontabSchedule=None) -> None:
    """Create (once) the nightly full recomputation of each variant in
    django-celery-beat's database scheduler. A migration passes its historical
    models; an existing row is left as the admin edited it."""
    if PeriodicTask is None:
        from django_celery_beat.models import CrontabSchedule, PeriodicTask
    import json

    nightly, _ = CrontabSchedule.objects.get_or_create(
        minute="30", hour=str(RECOMPUTE_HOUR), day_of_week="*", day_of_month="*", month_of_year="*"
    )
    for variant in VARIANTS:
        PeriodicTask.objects.get_or_create(
            name=schedule_name(variant),
            defaults={
                "task": RECOMPUTE_TASK,
                "crontab": nightly,
                "args": json.dumps([variant]),
                "queue": queue_for(variant),
                "enabled": True,
            },
        )
