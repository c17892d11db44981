"""The database is the truth: a game resumed by a new process plays on identically.

The restart is real: a second process opens the same SQLite file, with no
position parsed and no connection open, and plays the game to its end from
the seed and the move log alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games import engine, positions
from games.models import GameSeat
from games.services import tables
from tests.support.games import fresh, latest_game, make_user, moves, play_humans

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SEED = "a5" * 32
HALFWAY = 40


@pytest.fixture
def fixed_seed(monkeypatch):
    monkeypatch.setattr(tables, "new_seed", lambda: SEED)


def three_player_game(names):
    users = [make_user(n) for n in names]
    rules = engine.Rules(variant="perevodnoy", players=3)
    table = tables.do_create_table(rules=rules, host=users[0], seat_users=users, start=True)
    return latest_game(table), dict(enumerate(users))


def test_the_cache_always_equals_a_replay_of_the_log(fixed_seed):
    game, users = three_player_game(["a1", "a2", "a3"])
    game = play_humans(game, users, check_cache=True)
    assert game.is_over
    assert positions.replay(game) == engine.Game.from_json(game.state_json)
    for upto in (0, 1, game.move_count // 2):
        position = positions.replay(game, upto=upto)
        assert position == positions.replay(fresh(game), upto=upto)
    assert positions.replay(game, upto=0) == positions.deal_of(game)


def run_phase(db_path: Path, *args: str) -> dict:
    """One life of a server process on the database file: a new interpreter each time."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "PYTEST_ADDOPTS"}}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "durak_site.settings",
            "SQLITE_PATH": str(db_path),
            "DEBUG": "true",
            "CELERY_EMBEDDED": "false",
            "LOG_LEVEL": "WARNING",
        }
    )
    command = [sys.executable, *args]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]) if args[0] == "-m" else {}


def test_a_game_resumed_by_a_new_process_plays_on_identically(fixed_seed, tmp_path):
    # The same deal twice: once straight through here, once in two processes.
    straight, _users = three_player_game(["b1", "b2", "b3"])
    straight = play_humans(straight, _users)
    assert straight.move_count > HALFWAY

    db_path = tmp_path / "restart.sqlite3"
    run_phase(db_path, "manage.py", "migrate", "--noinput")
    first_life = run_phase(db_path, "-m", "tests.services.restart_phases", "start", SEED, str(HALFWAY))
    assert first_life["move_count"] == HALFWAY
    assert first_life["cached"] > 0  # that process played on positions it kept in memory
    # The first process has exited: its positions and connections are gone.
    second_life = run_phase(db_path, "-m", "tests.services.restart_phases", "resume", str(first_life["game_id"]))

    assert second_life["cached_at_start"] == 0
    assert second_life["move_count_at_start"] == HALFWAY
    assert second_life["state_equals_replay"]
    assert second_life["over"]
    assert second_life["moves"] == [list(m[:2]) for m in moves(straight)]
    assert second_life["result"] == straight.result
    places = [list(p) for p in GameSeat.objects.filter(game=straight).values_list("number", "place", "is_loser")]
    assert second_life["places"] == places
