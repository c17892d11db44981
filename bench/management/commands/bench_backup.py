"""Time a backup and a restore of a club's database of many games.

    python manage.py bench_backup --games 100000
    python manage.py bench_backup --games 100000 --database-url postgresql://postgres@127.0.0.1:5432/postgres

Never touches the dev or test database: like bench_ratings, it starts itself again in a
child process on a scratch database (a SQLite file in a temporary directory, or a new
PostgreSQL database `bench_backup_<pid>`), migrates it, fills it with generated finished
games (bench_ratings' `fill`: players, games, seats) and `--moves` moves each, then times
`backups.services.do_backup` into a file and `do_restore` of that file into a second, empty
scratch database, checks the restored counts, and removes both. The last line is
`backup_seconds=<s> restore_seconds=<s> bytes=<n>`.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from .bench_ratings import _create_postgres_database, fill

INSIDE = "DURAK_BENCH_BACKUP_INSIDE"
RESTORE_INTO = "DURAK_BENCH_BACKUP_RESTORE_INTO"


class Command(BaseCommand):
    help = "Fill a scratch database with games and time a backup and a restore of it."

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=100_000)
        parser.add_argument("--moves", type=int, default=30, help="moves stored per game")
        parser.add_argument("--players", type=int, default=400)
        parser.add_argument(
            "--database-url", default="", help="a PostgreSQL server for the scratch databases (default SQLite)"
        )

    def handle(self, *args, **options):
        if options["games"] < 1 or options["players"] < 6 or options["moves"] < 0:
            raise CommandError("--games must be at least 1, --players at least 6, --moves not negative")
        if os.environ.get(INSIDE) == "1":
            return self._inside(options)
        return self._relaunch(options)

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
        workdir = tempfile.mkdtemp(prefix="durak-bench-backup-")
        env["BACKUP_DIR"] = workdir
        url = options["database_url"]
        drops = []
        if url:
            parts = urlsplit(url)
            names = [f"bench_backup_{os.getpid()}", f"bench_backup_{os.getpid()}_restored"]
            drops = [_create_postgres_database(url, name) for name in names]
            env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + names[0]))
            env[RESTORE_INTO] = names[1]
            self.stdout.write(f"bench_backup: PostgreSQL databases {', '.join(names)}")
        else:
            env["SQLITE_PATH"] = str(Path(workdir) / "bench.sqlite3")
            env[RESTORE_INTO] = str(Path(workdir) / "restored.sqlite3")
            self.stdout.write(f"bench_backup: SQLite file {env['SQLITE_PATH']}")
        args = [f"--games={options['games']}", f"--players={options['players']}", f"--moves={options['moves']}"]
        manage = Path(settings.BASE_DIR) / "manage.py"
        try:
            child = subprocess.Popen(
                [sys.executable, str(manage), "bench_backup", *args], env=env, stdout=subprocess.PIPE, text=True
            )
            for line in child.stdout:
                self.stdout.write(line.rstrip("\n"))
            code = child.wait()
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
            for drop in drops:
                drop()
        if code:
            raise CommandError(f"the benchmark failed (exit {code})")

    def _inside(self, options):
        from django.db import connection

        from backups import services
        from games.models import Game, GameSeat, Move

        call_command("migrate", verbosity=0, interactive=False)
        started = time.perf_counter()
        made = fill(options["games"], options["players"], random.Random(8))
        moves = _fill_moves(options["moves"])
        self.stdout.write(
            f"generated {made['games']} games, {made['seats']} seats, {moves} moves "
            f"in {time.perf_counter() - started:.1f}s ({connection.vendor})"
        )
        counts = (Game.objects.count(), GameSeat.objects.count(), Move.objects.count())
        started = time.perf_counter()
        run = services.do_backup(Path(settings.BACKUP_DIR) / f"bench{services.engine_for(connection).suffix}")
        backup_seconds = time.perf_counter() - started
        # The restore goes into the second, empty scratch database.
        connection.close()
        connection.settings_dict["NAME"] = os.environ[RESTORE_INTO]
        started = time.perf_counter()
        services.do_restore(run.path)
        restore_seconds = time.perf_counter() - started
        restored = (Game.objects.count(), GameSeat.objects.count(), Move.objects.count())
        if restored != counts:
            raise CommandError(f"restored {restored} games, seats, moves of {counts}")
        self.stdout.write(f"restored {restored[0]} games, {restored[1]} seats, {restored[2]} moves")
        self.stdout.write(f"backup_seconds={backup_seconds:.2f} restore_seconds={restore_seconds:.2f} bytes={run.size}")


def _fill_moves(per_game: int) -> int:
    from games.models import Game, Move

    actions = ["attack:6S", "defend:6S:7S", "take", "done", "throw:9H", "transfer:6D"]
    made = 0
    ids = list(Game.objects.values_list("pk", flat=True))
    for start in range(0, len(ids), 2000):
        rows = [
            Move(game_id=game_id, number=number, seat=number % 2, action=actions[number % len(actions)])
            for game_id in ids[start : start + 2000]
            for number in range(per_game)
        ]
        Move.objects.bulk_create(rows, batch_size=5000)
        made += len(rows)
    Game.objects.update(move_count=per_game)
    return made
