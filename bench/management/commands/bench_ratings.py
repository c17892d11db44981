"""Time a full recomputation of the ratings, database included.

    python manage.py bench_ratings --games 100000
    python manage.py bench_ratings --games 100000 --database-url postgresql://postgres@127.0.0.1:5432/postgres

Never touches the dev or test database: the command starts itself again in a
child process pointed at a scratch database (a new SQLite file in a temporary
directory, or a new PostgreSQL database `bench_ratings_<pid>` on the given
server), migrates it, fills it with generated finished rated games (players of
known, different strengths; 2-6 players, partners, shared places; both
variants), times `ratings.services.recompute` of every variant, and removes the
scratch database. Then the library alone (the rating package's own `rate`, the
same model and parameters: `library_rate`) rates the same games, read the same
way, in the same process. The time the site's model took inside the
recomputation is printed too: the rest is what the site does around it.
The last line is `games_per_s=<n> library_games_per_s=<n> overhead=<ratio>`
(the library's rate over the end-to-end rate, wall clock; the line before it
gives the same ratio in this process's CPU time, steadier on a shared machine).
"""

from __future__ import annotations

import os
import platform
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

INSIDE = "DURAK_BENCH_RATINGS_INSIDE"
PLAYERS = 400


class Command(BaseCommand):
    help = "Fill a scratch database with finished rated games and time a full ratings recomputation."

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=100_000)
        parser.add_argument("--players", type=int, default=PLAYERS)
        parser.add_argument("--seed", type=int, default=8)
        parser.add_argument(
            "--database-url", default="", help="a PostgreSQL server to create the scratch database on (default SQLite)"
        )

    def handle(self, *args, **options):
        if options["games"] < 1 or options["players"] < 6:
            raise CommandError("--games must be at least 1 and --players at least 6")
        if os.environ.get(INSIDE) == "1":
            return self._inside(options)
        return self._relaunch(options)

    # ------------------------------------------------------------ parent

    def _relaunch(self, options):
        env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "SQLITE_PATH"}}
        env.update(
            {
                INSIDE: "1",
                "DEBUG": "false",
                "SECRET_KEY": env.get("SECRET_KEY") or secrets.token_urlsafe(50),
                "LOG_LEVEL": "WARNING",
                "CELERY_EMBEDDED": "false",
            }
        )
        workdir = tempfile.mkdtemp(prefix="durak-bench-ratings-")
        url = options["database_url"]
        drop = None
        if url:
            name = f"bench_ratings_{os.getpid()}"
            drop = _create_postgres_database(url, name)
            parts = urlsplit(url)
            env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + name))
            self.stdout.write(f"bench_ratings: PostgreSQL database {name}")
        else:
            env["SQLITE_PATH"] = str(Path(workdir) / "bench.sqlite3")
            self.stdout.write(f"bench_ratings: SQLite file {env['SQLITE_PATH']}")
        args = [f"--games={options['games']}", f"--players={options['players']}", f"--seed={options['seed']}"]
        manage = Path(settings.BASE_DIR) / "manage.py"
        try:
            child = subprocess.Popen(
                [sys.executable, str(manage), "bench_ratings", *args], env=env, stdout=subprocess.PIPE, text=True
            )
            for line in child.stdout:  # relayed, so callers (and tests) read one stdout
                self.stdout.write(line.rstrip("\n"))
            code = child.wait()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
            if drop is not None:
                drop()
        if code:
            raise CommandError(f"the benchmark failed (exit {code})")

    # ------------------------------------------------------------- child

    def _inside(self, options):
        from django.db import connection

        from ratings import services

        started = time.perf_counter()
        call_command("migrate", verbosity=0, interactive=False)
        self.stdout.write(f"migrated in {time.perf_counter() - started:.1f}s ({connection.vendor})")
        started = time.perf_counter()
        made = fill(options["games"], options["players"], random.Random(options["seed"]))
        self.stdout.write(
            f"generated {made['games']} games, {made['seats']} seats in {time.perf_counter() - started:.1f}s"
        )
        timings: dict = {}
        rated = 0
        with _model_clock() as model_seconds:
            cpu_started = time.process_time()
            started = time.perf_counter()
            for variant in services.VARIANTS:
                rated += services.recompute(variant, timings=timings)
            elapsed = time.perf_counter() - started
            cpu = time.process_time() - cpu_started
        from ratings.models import RatingChange

        # Every generated seat is a person at a rated table: one history row each.
        written = RatingChange.objects.count()
        self.stdout.write(f"history rows {written} of {made['seats']} seats")
        if written != made["seats"]:
            raise CommandError(f"the recomputation wrote {written} history rows for {made['seats']} seats")
        breakdown = ", ".join(f"{name} {seconds:.2f}s" for name, seconds in timings.items())
        self.stdout.write(
            f"machine: {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"
        )
        self.stdout.write(f"recomputed {rated} games in {elapsed:.2f}s ({breakdown})")
        # On a shared machine the wall clock includes waiting for a core; the CPU
        # time of this process (the database server's not included) shows how much.
        self.stdout.write(f"this process's CPU time {cpu:.2f}s: {rated / cpu:.0f} games per CPU second")
        # What the site's model itself took inside that (the same for any code around it),
        # and so what reading, the ledger, writing and committing took.
        self.stdout.write(
            f"of which the site's model (ratings.model.rate: ties broken each way, pairs too) "
            f"{model_seconds[0]:.4f}s, around it {elapsed - model_seconds[0]:.4f}s (wall)"
        )
        # The same games, in the same order, rated by the library alone (no database).
        library = library_rate(services.VARIANTS)
        self.stdout.write(
            f"the library alone ({library['model']} {library['version']}, its own rate, players and pairs, "
            f"in memory): {library['games']} games in {library['seconds']:.2f}s, CPU {library['cpu']:.2f}s; "
            f"CPU overhead {cpu / library['cpu']:.2f}"
        )
        if library["games"] != rated:
            raise CommandError(f"the library rated {library['games']} games, the recomputation {rated}")
        end_to_end = rated / elapsed
        library_per_s = library["games"] / library["seconds"]
        self.stdout.write(
            f"games_per_s={end_to_end:.0f} library_games_per_s={library_per_s:.0f} "
            f"overhead={library_per_s / end_to_end:.2f}"
        )


@contextmanager
def _model_clock():
    """Seconds spent in `ratings.model.rate` meanwhile (`[seconds]`, filled as it runs): the
    function is wrapped for the while (two clock reads per call, about 15 ms per 20,000 games)."""
    from ratings import model as rating_model

    spent = [0.0]
    rate = rating_model.rate
    clock = time.perf_counter

    def timed(*args, **kwargs):
        started = clock()
        try:
            return rate(*args, **kwargs)
        finally:
            spent[0] += clock() - started

    rating_model.rate = timed
    try:
        yield spent
    finally:
        rating_model.rate = rate


def library_rate(variants) -> dict:
    """Time the trueskill package's own `rate` on the games the recomputation just rated: the
    same rows read the same way (before the clock starts), each game given to the package as
    the site gives it (teams by `GameSeat.team`, ranks by counted place, ties as ties: the
    package's own draws, where the site averages the ways of breaking them; the pair rating of
    a partners game too), with the site's environment (`ratings.model.environment`: its mu,
    sigma, beta, tau and draw probability), ratings kept in a dict. (With the site's draw
    probability 0 the package's draws give degenerate numbers, which is why the site never
    gives it one: here only what rating them costs counts.)"""
    from importlib.metadata import version

    from ratings import model as rating_model
    from ratings import selectors
    from ratings.ledger import game_teams, pair_key

    env = rating_model.environment()
    prepared = []
    for variant in variants:
        for game in selectors.games_to_rate(variant):
            teams = game_teams(game.seats)
            if teams is not None:
                prepared.append(
                    (variant, [[s.user_id for s in members] for members, _ in teams], [rank for _, rank in teams])
                )
    new_rating = env.create_rating
    cpu_started = time.process_time()
    started = time.perf_counter()
    players: dict = {}
    pairs: dict = {}
    for variant, teams, ranks in prepared:
        ratings = [[players.get((variant, uid)) or new_rating() for uid in team] for team in teams]
        rated = env.rate(ratings, ranks=ranks)
        for team, new in zip(teams, rated, strict=True):
            for uid, rating in zip(team, new, strict=True):
                players[(variant, uid)] = rating
        if all(len(team) == 2 for team in teams):
            keys = [(variant, *pair_key(*team)) for team in teams]
            rated = env.rate([[pairs.get(key) or new_rating()] for key in keys], ranks=ranks)
            for key, (rating,) in zip(keys, rated, strict=True):
                pairs[key] = rating
    seconds = time.perf_counter() - started
    return {
        "games": len(prepared),
        "seconds": seconds,
        "cpu": time.process_time() - cpu_started,
        "model": type(env).__name__,
        "version": version("trueskill"),
    }


def _create_postgres_database(url: str, name: str):
    import psycopg

    parts = urlsplit(url)
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop():
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return drop


def fill(games: int, players: int, rng: random.Random) -> dict:
    """Generated finished rated games: players of hidden strengths, places from
    strength plus luck; 2-6 players, some partners games, some shared places."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from games.models import Game, GameSeat, Table

    User = get_user_model()
    User.objects.bulk_create([User(username=f"bench{i}", password="!") for i in range(players)], batch_size=1000)
    user_ids = list(User.objects.filter(username__startswith="bench").values_list("pk", flat=True))
    strength = {uid: rng.gauss(0, 1) for uid in user_ids}
    variants = ["podkidnoy", "perevodnoy"]
    tables = Table.objects.bulk_create(
        [
            Table(rules={}, variant=variant, seats_count=2, rated=True, status="finished", invite_token=f"b{variant}")
            for variant in variants
        ]
    )
    start = timezone.now() - timedelta(days=90)
    seats_total = 0
    made = 0
    batch = 5000
    while made < games:
        count = min(batch, games - made)
        shapes = []
        rows = []
        for k in range(count):
            number = made + k
            n = rng.choice((2, 2, 3, 4, 4, 5, 6))
            partners = n == 4 and rng.random() < 0.3
            variant = variants[number % 2]
            shapes.append((n, partners))
            rows.append(
                Game(
                    table=tables[number % 2],
                    number=number,
                    rules={"players": n, "partners": partners},
                    variant=variant,
                    rated=True,
                    seed="bench",
                    seed_hash="bench",
                    status="finished",
                    state_json="",
                    result={},
                    finished_at=start + timedelta(seconds=60 * number + rng.random()),
                )
            )
        created = Game.objects.bulk_create(rows, batch_size=1000)
        seat_rows = []
        for game, (n, partners) in zip(created, shapes, strict=True):
            people = rng.sample(user_ids, n)
            score = {uid: strength[uid] + rng.gauss(0, 1.2) for uid in people}
            if partners:
                team_score = {t: score[people[t]] + score[people[t + 2]] for t in (0, 1)}
                worse = 0 if team_score[0] < team_score[1] else 1
                draw = rng.random() < 0.05
                for seat, uid in enumerate(people):
                    team = seat % 2
                    place = 1 if draw else (n if team == worse else rng.randint(1, n - 1))
                    seat_rows.append(
                        GameSeat(game=game, number=seat, user_id=uid, team=team, place=place, counted_place=place)
                    )
            else:
                order = sorted(people, key=lambda uid: -score[uid])
                places = {}
                place = 1
                for i, uid in enumerate(order):
                    # Now and then two neighbours leave in the same bout and share a place (R19).
                    if i > 0 and i < n - 1 and rng.random() < 0.1:
                        places[uid] = places[order[i - 1]]
                    else:
                        places[uid] = i + 1 if i > 0 else place
                for seat, uid in enumerate(people):
                    seat_rows.append(
                        GameSeat(
                            game=game, number=seat, user_id=uid, team=seat, place=places[uid], counted_place=places[uid]
                        )
                    )
        GameSeat.objects.bulk_create(seat_rows, batch_size=2000)
        seats_total += len(seat_rows)
        made += count
    return {"games": made, "seats": seats_total}
