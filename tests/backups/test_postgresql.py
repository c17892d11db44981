"""The same on PostgreSQL (pg_dump's custom format, pg_restore in one transaction), through
`manage.py backup` and `restore` on scratch databases of the test's own: a backup taken while
games are played restores whole into a fresh database, a round trip after play is identical
table for table and takes new rows, and a database holding data or a cut file is refused."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]

PLAY = """
from tests.support.games import make_user, open_game, play_to_end
users = [make_user("anna"), make_user("boris")]
for _ in range(GAMES):
    play_to_end(open_game(users), users)
"""
CHECK = """
from games.models import Game, Move
from games.positions import verify_game
games = list(Game.objects.all())
for game in games:
    assert Move.objects.filter(game=game).count() == game.move_count, game.pk
    if game.is_over:
        assert verify_game(game).ok, game.pk
print("whole", len(games), sum(game.is_over for game in games))
"""
NEW_ROWS = """
from tests.support.games import make_user, open_game, play_to_end
from games.models import Game
users = [make_user("vera"), make_user("gleb")]
game = play_to_end(open_game(users), users)
print("new", game.pk, Game.objects.count())
"""


@pytest.fixture
def databases(postgres_url):
    """Two scratch databases on the server: the site's and a fresh one; their URLs."""
    parts = urlsplit(postgres_url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    names = [f"wt_push_backup_{role}_{os.getpid()}" for role in ("site", "fresh")]
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in names:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    yield [urlunsplit(parts._replace(path=f"/{name}")) for name in names]
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in names:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(url: str, *args: str, background: bool = False):
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "REDIS_URL", "SQLITE_PATH"}}
    env.update(DATABASE_URL=url, DEBUG="true", CELERY_EMBEDDED="false", LOG_LEVEL="WARNING")
    command = [sys.executable, "manage.py", *args]
    if background:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def tables_of(url: str) -> dict[str, list]:
    with psycopg.connect(url) as conn:
        names = [
            row[0]
            for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
        ]
        return {
            name: conn.execute(f'SELECT * FROM "{name}" ORDER BY 1').fetchall()
            for name in names
            if name != "backups_backuprun"  # the backup's own attempt, finished after its copy
        }


def finished_games(url: str) -> int:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT count(*) FROM games_game WHERE status = 'finished'").fetchone()[0]


def test_backups_and_restores_on_postgresql(databases, tmp_path):
    site, fresh = databases
    assert manage(site, "migrate", "--noinput").returncode == 0
    players = manage(site, "shell", "-c", PLAY.replace("GAMES", "8"), background=True)
    deadline = time.monotonic() + 120
    while finished_games(site) < 1:  # play is under way
        assert players.poll() is None and time.monotonic() < deadline, players.stderr and players.stderr.read()
        time.sleep(0.1)
    during = tmp_path / "during.pgdump"
    made = manage(site, "backup", str(during))
    assert made.returncode == 0, made.stderr
    assert players.wait(300) == 0, players.stderr.read()
    assert finished_games(site) == 8

    restored = manage(fresh, "restore", str(during))
    assert restored.returncode == 0, restored.stderr
    whole = manage(fresh, "shell", "-c", CHECK)
    assert whole.returncode == 0, whole.stderr
    _, games, finished = whole.stdout.splitlines()[-1].split()
    assert int(games) >= 1 and int(finished) >= 1

    # A database that holds data is refused without --replace, and left as it was.
    after = tmp_path / "after.pgdump"
    assert manage(site, "backup", str(after)).returncode == 0
    before = tables_of(fresh)
    refused = manage(fresh, "restore", str(after))
    assert refused.returncode != 0 and "--replace" in refused.stderr
    assert tables_of(fresh) == before
    # A cut file is refused, with --replace too, and writes nothing.
    cut = tmp_path / "cut.pgdump"
    cut.write_bytes(after.read_bytes()[: after.stat().st_size * 2 // 3])
    refused = manage(fresh, "restore", str(cut), "--replace")
    assert refused.returncode != 0 and "CommandError" in refused.stderr
    assert tables_of(fresh) == before

    # The round trip after play: identical table for table, and the restored one goes on.
    replaced = manage(fresh, "restore", str(after), "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert tables_of(fresh) == tables_of(site)
    grown = manage(fresh, "shell", "-c", NEW_ROWS)
    assert grown.returncode == 0, grown.stderr
    _, game_id, count = grown.stdout.splitlines()[-1].split()
    assert int(count) == 9 and int(game_id) > max(row[0] for row in tables_of(site)["games_game"])
