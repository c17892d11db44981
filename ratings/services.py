"""Writes: applying rated games to the ratings, one transaction each.

- `rate_game(game_id)` brings the game's variant up to date up to that game:
  every earlier finished rated game of the variant not yet applied is applied
  first, in the order the games finished (finished_at, then id). Applying a
  game twice changes nothing (`RatedGame` marks it). If a game turns up that
  finished before games already applied (a late commit), the variant is
  recomputed from scratch, so the order stays exact.
- `recompute(variant)` rebuilds the variant's ratings from scratch.
- `sweep_unrated(variant)` (the beat, every minute) applies any finished rated
  game still without its rating, in finishing order: a lost message delays a
  rating by a minute at most. It also recomputes a variant whose ratings were
  computed with another model (`VariantState.model_fingerprint` against
  `ratings.model.MODEL_FINGERPRINT`), storing the new fingerprint with them.

Both take the variant's `VariantState` row lock first: two workers never
interleave one variant's games, while the other variant goes on in parallel.
The rows are read in bulk, the ratings computed in memory (`ratings.ledger`,
the same code for both paths) and written back in bulk.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from celery import current_app
from django.db import connection, transaction
from django.utils import timezone

from games import selectors as game_selectors
from games.choices import GameStatus, Variant
from games.services import notify
from ratings import model as rating_model
from ratings import selectors
from ratings.ledger import GameRow, Ledger, Standing
from ratings.models import PairRating, RatedGame, Rating, RatingChange, VariantState

log = logging.getLogger(__name__)

VARIANTS = tuple(Variant.values)
RECOMPUTE_TASK = "ratings.tasks.recompute"
RATE_TASK = "ratings.tasks.rate_game"
SWEEP_TASK = "ratings.tasks.sweep_unrated"
SWEEP_SECONDS = 60  # the sweep of unrated games (a lost rate_game message waits at most this long)
RECOMPUTE_HOUR = 4  # the nightly full recomputation, server time (editable in the admin)


def queue_for(variant: str) -> str:
    """The Celery queue of a variant's rating work (contract 6)."""
    return f"ratings-{variant}"


# Full recomputations are long: the batch queue (settings.BATCH_QUEUE, docs/scaling.md),
# never the variant's ratings queue, whose games would wait behind them. The variant's
# lock keeps a recomputation and a game's rating apart wherever each runs.
BATCH_QUEUE = "batch"


def recompute_queue() -> str:
    from django.conf import settings

    return getattr(settings, "BATCH_QUEUE", BATCH_QUEUE)


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")


def _lock(variant: str) -> VariantState:
    """Take the variant's writer lock (inside the caller's transaction).

    The UPDATE comes first: on SQLite it takes the write lock before anything is
    read (a read first would start from a snapshot another writer may change);
    on PostgreSQL it locks the row like select_for_update.
    """
    # A state row made here has no ratings behind it: they are the current model's from the start.
    VariantState.objects.get_or_create(variant=variant, defaults={"model_fingerprint": rating_model.MODEL_FINGERPRINT})
    VariantState.objects.filter(variant=variant).update(touched_at=timezone.now())
    return VariantState.objects.select_for_update().get(variant=variant)


def _applied(variant: str):
    """The ids of the variant's games already applied (a subquery of the games' reads)."""
    return RatedGame.objects.filter(variant=variant).values("game_id")


_seat_rows = selectors.seat_rows
SEAT_FIELDS = selectors.SEAT_FIELDS


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
RATING_FIELDS = ("user", "variant", "mu", "sigma", "games", "last_played")
PAIR_FIELDS = ("first", "second", "variant", "mu", "sigma", "games", "last_played")
INSERT_BATCH = 5000


def _table(model, field_names) -> tuple[str, str]:
    """The quoted table and column list of `field_names`."""
    quote = connection.ops.quote_name
    columns = [model._meta.get_field(name).column for name in field_names]
    return quote(model._meta.db_table), ", ".join(quote(c) for c in columns)


def _copy_types(cursor, table: str, column_list: str) -> list:
    """The columns' types as the server names them (COPY's binary format needs them)."""
    cursor.execute(f"SELECT {column_list} FROM {table} WHERE false")
    return [column.type_code for column in cursor.description]


def _insert(model, field_names, rows) -> None:
    """Many rows in few statements: the history of a recomputation is hundreds of
    thousands of rows, and model instances plus bulk_create's per-query parameter
    cap (999 on SQLite) would cost more than the rating itself. Values must be
    ready for the database (datetimes adapted by the caller)."""
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return
    rows = itertools.chain((first,), rows)
    table, column_list = _table(model, field_names)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY: one stream instead of a round trip per row (psycopg 3's cursor.copy), in
            # the binary format: no float printed by Python and parsed again by the server
            # (text took 1.5 s of this process and 2.6 s of the server for 370,000 rows,
            # binary 0.3 s and 2.1 s). Binary needs the columns' types: the server's own.
            types = _copy_types(cursor, table, column_list)
            with cursor.copy(f"COPY {table} ({column_list}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(types)
                for row in rows:
                    copy.write_row(row)
            return
        sql = f"INSERT INTO {table} ({column_list}) VALUES ({', '.join(['%s'] * len(field_names))})"
        while batch := list(itertools.islice(rows, INSERT_BATCH)):
            cursor.executemany(sql, batch)


COPY_CHUNK = 10_000  # history rows per COPY statement of `_CopyBehind`


class _CopyBehind:
    """PostgreSQL: rows COPYed by a thread of their own while this one rates the next games.

    The history used to be one COPY fed as it was rated, and the server stored it
    meanwhile; but the foreign keys (`RatingChange.game` and `.user`, `RatedGame.game`,
    deferred to the commit as Django declares them) were all checked at the commit,
    after the rating: 0.6 s of waiting per 20,000 games. Here they are checked
    IMMEDIATE, at the end of each COPY statement of COPY_CHUNK rows, and the thread
    that waits for the server is not this one: the checks run on the server while the
    next rows are rated. The same connection and transaction (psycopg's connection is
    thread-safe, and this thread does not use it again before `__exit__`); an error in either
    thread rolls the whole transaction back."""

    def __init__(self, *tables):
        """`tables`: the (model, field names) rows will be sent for, prepared here, while
        this thread still has the connection to itself."""
        self.tables = {}
        with connection.cursor() as cursor:
            for model, field_names in tables:
                table, column_list = _table(model, field_names)
                sql = f"COPY {table} ({column_list}) FROM STDIN (FORMAT BINARY)"
                self.tables[model] = (sql, _copy_types(cursor, table, column_list))
        self.raw = connection.connection  # the DB-API connection of the current transaction
        self.jobs: queue.Queue = queue.Queue(maxsize=4)
        self.failure: list[BaseException] = []
        self.thread = threading.Thread(target=self._write, name="ratings-copy", daemon=True)

    def __enter__(self):
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        self.thread.start()
        return self

    def send(self, model, rows) -> None:
        """Queue `rows` of `model` (any iterable: consumed here, COPY_CHUNK at a time) for the thread."""
        sql, types = self.tables[model]
        rows = iter(rows)
        while not self.failure and (chunk := list(itertools.islice(rows, COPY_CHUNK))):
            self.jobs.put((sql, types, chunk))

    def _write(self) -> None:
        try:
            with self.raw.cursor() as cursor:
                while (job := self.jobs.get()) is not None:
                    sql, types, chunk = job
                    with cursor.copy(sql) as copy:
                        copy.set_types(types)
                        for row in chunk:
                            copy.write_row(row)
        except BaseException as error:  # re-raised in the rating thread by __exit__
            self.failure.append(error)
            while self.jobs.get() is not None:  # (so that `send` never blocks on a full queue)
                pass

    def __exit__(self, kind, error, trace):
        self.jobs.put(None)
        self.thread.join()
        if error is None and self.failure:
            with connection.wrap_database_errors:  # (as Django's own cursors raise it: IntegrityError...)
                raise self.failure[0]
        if error is None:
            with connection.cursor() as cursor:
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        return False


def _stamps(games: list[GameRow]) -> list:
    """Each game's finish as the database takes it, adapted once for its mark and its history rows."""
    adapt = connection.ops.adapt_datetimefield_value
    return [adapt(game.finished_at) for game in games]


def _marks(variant: str, games: list[GameRow], stamps: list, first_seq: int) -> list[tuple]:
    """The RatedGame rows of `games` (finishes `stamps`), numbered on from `first_seq` in their order."""
    return [
        (game.game_id, variant, stamp, seq) for seq, game, stamp in zip(itertools.count(first_seq + 1), games, stamps)
    ]


def _changes(
    variant: str,
    ledger: Ledger,
    games: list[GameRow],
    stamps: list,
    first_seq: int,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple]:
    """Apply `games` in order on the ledger, yielding the RatingChange rows game by game
    (a generator: the ledger is only up to date once it is exhausted)."""
    # (rating_model.display_rating, inlined: it runs twice per seat of every game)
    alpha, target = rating_model.DISPLAY_ALPHA, rating_model.DISPLAY_TARGET
    total = len(games)
    apply = ledger.apply
    for done, (game, finished_at) in enumerate(zip(games, stamps), 1):
        seq = first_seq + done
        for user_id, seat, place, mu0, sigma0, mu1, sigma1 in apply(game):
            yield (
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
        if progress is not None and (done % 5000 == 0 or done == total):
            progress(done, total)


def _store(
    variant: str,
    ledger: Ledger,
    marks: list[tuple],
    changes: Iterable[tuple],
    existing_players: dict[int, int],
    existing_pairs: dict[tuple[int, int], int],
    clock=None,
    *,
    behind: bool = False,
) -> None:
    """Write the marks, the history (`changes`: consuming it brings the ledger up to
    date) and then the touched ratings. `behind` (a full recomputation on PostgreSQL,
    `changes` still to be rated): the rows go through `_CopyBehind`."""
    if behind:
        with _CopyBehind((RatedGame, MARK_FIELDS), (RatingChange, CHANGE_FIELDS)) as copy:
            copy.send(RatedGame, marks)
            copy.send(RatingChange, changes)
    else:
        _insert(RatingChange, CHANGE_FIELDS, changes)
        _insert(RatedGame, MARK_FIELDS, marks)
    if clock:
        clock.lap("write changes" if isinstance(changes, list) else "compute and write changes")

    # New rows (all of them after a recomputation's delete) go in like the history;
    # the few a game changes are updated.
    adapt = connection.ops.adapt_datetimefield_value
    new_ratings, updated_ratings = [], []
    for user_id in ledger.touched_players:
        st = ledger.players[user_id]
        if user_id in existing_players:
            updated_ratings.append(
                Rating(
                    pk=existing_players[user_id],
                    user_id=user_id,
                    variant=variant,
                    mu=st.mu,
                    sigma=st.sigma,
                    games=st.games,
                    last_played=st.last_played,
                )
            )
        else:
            new_ratings.append((user_id, variant, st.mu, st.sigma, st.games, adapt(st.last_played)))
    _insert(Rating, RATING_FIELDS, new_ratings)
    Rating.objects.bulk_update(updated_ratings, ["mu", "sigma", "games", "last_played"], batch_size=500)

    new_pairs, updated_pairs = [], []
    for key in ledger.touched_pairs:
        st = ledger.pairs[key]
        if key in existing_pairs:
            updated_pairs.append(
                PairRating(
                    pk=existing_pairs[key],
                    first_id=key[0],
                    second_id=key[1],
                    variant=variant,
                    mu=st.mu,
                    sigma=st.sigma,
                    games=st.games,
                    last_played=st.last_played,
                )
            )
        else:
            new_pairs.append((key[0], key[1], variant, st.mu, st.sigma, st.games, adapt(st.last_played)))
    _insert(PairRating, PAIR_FIELDS, new_pairs)
    PairRating.objects.bulk_update(updated_pairs, ["mu", "sigma", "games", "last_played"], batch_size=500)
    touched = list(ledger.touched_players)
    transaction.on_commit(lambda: selectors.forget(variant, touched))
    if clock:
        clock.lap("write ratings")


def _read_all(variant: str) -> list[GameRow]:
    return selectors.games_to_rate(variant)


def _replace_all(variant: str, state: VariantState, games, stamps, ledger, changes, clock) -> None:
    """Inside the lock: the variant's rows become exactly the computed ones."""
    RatingChange.objects.filter(variant=variant).delete()
    RatedGame.objects.filter(variant=variant).delete()
    Rating.objects.filter(variant=variant).delete()
    PairRating.objects.filter(variant=variant).delete()
    clock.lap("delete")
    behind = connection.vendor == "postgresql" and not isinstance(changes, list)
    _store(variant, ledger, _marks(variant, games, stamps, 0), changes, {}, {}, clock, behind=behind)
    _save_state(state, len(games), games[-1] if games else None, recomputed=True)


def _rebuild(variant: str, state: VariantState) -> int:
    """Recompute inside the lock already held (a game arrived out of order, or the
    stored ratings are another model's)."""
    clock = _Clock(None)
    games = _read_all(variant)
    stamps = _stamps(games)
    ledger = Ledger()
    _replace_all(variant, state, games, stamps, ledger, _changes(variant, ledger, games, stamps, 0), clock)
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
        state.model_fingerprint = rating_model.MODEL_FINGERPRINT
    state.save()


def recompute(variant: str, *, progress: Callable[[int, int], None] | None = None, timings: dict | None = None) -> int:
    """Rebuild a variant's ratings from every finished rated game, in finishing order.

    Returns the number of games applied. `progress(done, total)` is called now and then.
    The games are read before the variant's lock is taken; under the lock the rows
    are replaced, and games that finished meanwhile are applied after them as
    `rate_game` would. On SQLite the games are also rated before the lock (it is
    the database's one write lock, which the tables' moves need too). On
    PostgreSQL the lock only holds back the variant's other rating writers, and
    the history is rated while a second thread sends it to the server
    (`_CopyBehind`): the server stores and checks each chunk while this process
    rates the next games.
    """
    _check_variant(variant)
    clock = _Clock(timings)
    games = _read_all(variant)
    clock.lap("read")
    stamps = _stamps(games)
    ledger = Ledger()
    changes = _changes(variant, ledger, games, stamps, 0, progress)
    if connection.vendor != "postgresql":
        changes = list(changes)
        clock.lap("compute")
    with transaction.atomic():
        state = _lock(variant)
        _replace_all(variant, state, games, stamps, ledger, changes, clock)
        late = _catch_up(variant, state)
    clock.lap("commit")
    log.info("ratings of %s recomputed from %d games", variant, len(games) + late)
    return len(games) + late


def rate_game(game_id: int) -> int:
    """Bring the game's variant up to date up to this game; return how many games were applied."""
    game = game_selectors.rating_facts(game_id)
    if game is None or not game["rated"] or game["status"] != GameStatus.FINISHED or game["finished_at"] is None:
        return 0
    if game["is_private"]:
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
    (up to `upto` = (finished_at, game id), or all), in finishing order.

    Ratings stored under another model (`VariantState.model_fingerprint`) are not
    updated game by game: the variant is recomputed from its games under the current
    model first (every game, so nothing is left pending), in this same transaction."""
    if state.model_fingerprint != rating_model.MODEL_FINGERPRINT:
        log.warning(
            "ratings of %s were computed with %r, the model is now %r: recomputing",
            variant,
            state.model_fingerprint,
            rating_model.MODEL_FINGERPRINT,
        )
        return _rebuild(variant, state)
    pending = game_selectors.rated_games(variant, exclude_ids=_applied(variant), upto=upto)
    if not pending:
        return 0
    first_id, first_at = pending[0]
    if state.last_finished_at is not None and (first_at, first_id) < (state.last_finished_at, state.last_game_id):
        # A game finished before one already applied: only a rebuild keeps the order exact.
        log.warning("game %s of %s arrived out of order: recomputing", first_id, variant)
        _rebuild(variant, state)
        return len(pending)
    seats = _seat_rows(game_selectors.seat_values([game_id for game_id, _ in pending], SEAT_FIELDS))
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
    for earlier, counted in _window_before(variant, first_at, ledger.window):
        ledger.remember(earlier, counted)
    stamps = _stamps(games)
    changes = _changes(variant, ledger, games, stamps, state.last_seq)
    _store(variant, ledger, _marks(variant, games, stamps, state.last_seq), changes, existing_players, existing_pairs)
    _save_state(state, state.last_seq + len(games), games[-1])
    game_ids = [game.game_id for game in games]
    transaction.on_commit(lambda: _announce(game_ids))
    return len(games)


def _announce(game_ids: list[int]) -> None:
    """The games are rated: their tables' result shows the rating changes (re-sent to the
    table's sockets, whose render then reads them: `at_table.game_notes`)."""
    selectors.forget_game_changes(game_ids)
    for table_id in selectors.tables_of(game_ids):
        try:
            notify.table_changed(table_id, lobby=False)
        except Exception:  # the ratings are committed; a table not re-sent shows them on its next change
            log.exception("could not re-send table %s after its game was rated", table_id)


def sweep_unrated(variant: str) -> int:
    """Rate every finished rated game of the variant that has no rating yet, in finishing
    order (the safety net for a lost `rate_game` message; the beat runs it every
    SWEEP_SECONDS). Returns how many games were applied; a repeat finds nothing.

    A variant whose ratings were computed with another model than the current one
    (`ratings.model.MODEL_FINGERPRINT`, a model or parameter changed) is recomputed
    from its games instead, the new fingerprint stored in the same transaction: the
    next sweep finds it current, and a lost sweep leaves it for the next one."""
    _check_variant(variant)
    stored = VariantState.objects.filter(variant=variant).values_list("model_fingerprint", flat=True).first()
    stale = stored is not None and stored != rating_model.MODEL_FINGERPRINT
    if not stale and not game_selectors.rated_games(variant, exclude_ids=_applied(variant), limit=1):
        return 0
    with transaction.atomic():
        state = _lock(variant)
        applied = _catch_up(variant, state)
    if applied:
        log.info("sweep: %d unrated game(s) of %s rated", applied, variant)
    return applied


def _window_before(variant: str, first_at, window) -> list[tuple[GameRow, bool]]:
    """The games already applied that finished within `window` before `first_at`, in
    their order, each with whether it counted (it has change rows): the repeated-games
    rule counts them (`Ledger.remember`)."""
    marks = list(
        RatedGame.objects.filter(variant=variant, finished_at__gt=first_at - window)
        .order_by("seq")
        .values_list("game_id", "finished_at")
    )
    if not marks:
        return []
    counted = set(
        RatingChange.objects.filter(variant=variant, game_id__in=[game_id for game_id, _ in marks])
        .values_list("game_id", flat=True)
        .distinct()
    )
    seats = _seat_rows(game_selectors.seat_values([game_id for game_id, _ in marks], SEAT_FIELDS))
    return [(GameRow(game_id, when, seats.get(game_id, [])), game_id in counted) for game_id, when in marks]


# ------------------------------------------------------------------ Celery


def enqueue_rate_game(game_id: int, variant: str) -> None:
    """Nudge the variant's ratings worker (contract 6); never raises into the caller."""
    try:
        current_app.send_task(RATE_TASK, args=[game_id], queue=queue_for(variant))
    except Exception:  # the periodic recomputation (and the next game's task) catches up
        log.exception("could not enqueue the rating of game %s", game_id)


def enqueue_recompute(variant: str) -> None:
    _check_variant(variant)
    current_app.send_task(RECOMPUTE_TASK, args=[variant], queue=recompute_queue())


def schedule_name(variant: str) -> str:
    return f"ratings: recompute {variant}"


def sweep_name(variant: str) -> str:
    return f"ratings: sweep unrated games of {variant}"


def ensure_sweep_schedule(PeriodicTask=None, IntervalSchedule=None) -> None:
    """Create (once) each variant's sweep of unrated games (every SWEEP_SECONDS, on the
    variant's queue, so it never runs beside that variant's other rating work)."""
    if PeriodicTask is None:
        from django_celery_beat.models import IntervalSchedule, PeriodicTask
    import json

    every, _ = IntervalSchedule.objects.get_or_create(every=SWEEP_SECONDS, period="seconds")
    for variant in VARIANTS:
        PeriodicTask.objects.get_or_create(
            name=sweep_name(variant),
            defaults={
                "task": SWEEP_TASK,
                "interval": every,
                "args": json.dumps([variant]),
                "queue": queue_for(variant),
                "expire_seconds": SWEEP_SECONDS,
                "enabled": True,
            },
        )


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
                "queue": recompute_queue(),
                "enabled": True,
            },
        )
