"""Helpers for the backup tests: the site on a database file of the test's own, games played
on it meanwhile, and every table's rows to compare."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing, contextmanager
from pathlib import Path

from django.core.management import call_command
from django.db import connections

from games.models import Game, Move
from games.positions import verify_game
from tests.support.games import make_user, open_game, play_to_end


@contextmanager
def site_on(path: Path, migrate: bool = False):
    """Django's default database is the SQLite file `path` for the while (in every thread);
    the test database is set aside open, as it was, and comes back after."""
    connection = connections["default"]
    saved = connection.settings_dict["NAME"], connection.connection
    connection.connection = None
    connection.settings_dict["NAME"] = str(path)
    try:
        if migrate:
            call_command("migrate", verbosity=0, interactive=False)
        yield path
    finally:
        connection.close()
        connection.settings_dict["NAME"], connection.connection = saved


class Players(threading.Thread):
    """Two people playing whole games, one after another, until told to stop."""

    def __init__(self, names: tuple[str, str]):
        super().__init__(daemon=True)
        self.names = names
        self.stop = threading.Event()
        self.finished = 0
        self.error: BaseException | None = None

    def run(self):
        try:
            users = [make_user(name) for name in self.names]
            while not self.stop.is_set() or self.finished == 0:
                game = open_game(users)
                play_to_end(game, users)
                self.finished += 1
        except BaseException as exc:  # the test reports it
            self.error = exc
        finally:
            connections.close_all()


def every_game_whole() -> int:
    """Every finished game verifies and every game holds all its moves; returns the games seen."""
    games = list(Game.objects.all())
    for game in games:
        assert Move.objects.filter(game=game).count() == game.move_count, game.pk
        if game.is_over:
            result = verify_game(game)
            assert result.ok, (game.pk, result.problems)
    return len(games)


def tables_of(path: Path, leave_out: frozenset = frozenset()) -> dict[str, list]:
    """Every table's rows of the SQLite file at `path`, in order."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {
            name: db.execute(f'SELECT * FROM "{name}" ORDER BY 1').fetchall() for name in names if name not in leave_out
        }
