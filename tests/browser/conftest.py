"""A real server and Debian's headless Chromium for the browser tests.

`daphne_server`: daphne in a subprocess on a free 127.0.0.1 port, against a
file SQLite database this fixture creates and migrates in a temporary
directory (SQLITE_PATH), with the embedded Celery worker and beat on
(CELERY_EMBEDDED=true, in-memory broker), so bots move by themselves exactly
as under `python3 dev.py serve`; bots pause only briefly (BOT_PAUSE_SECONDS).
The tests never touch pytest-django's database: the server owns its own file,
which `daphne_server.db` reads (read-only queries) to know the truth of a game.

`browser`: Playwright's sync API driving /usr/bin/chromium (never a
downloaded browser). Without it the tests are skipped on a bare machine and
fail under CI=true.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import in_ci

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_TIMEOUT = 60
BOT_PAUSE = "0.15,0.35"  # seconds: short, but still through the worker's countdown and the beat


def _unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"{reason}; CI=true requires it", pytrace=False)
    pytest.skip(f"{reason}; install it to run the browser tests")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _server_env(db_path: Path, port: int) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DATABASE_URL",
            "REDIS_URL",
            "PYTEST_ADDOPTS",
            "PYTEST_CURRENT_TEST",
            "DURAK_INNER_TESTS",
        }
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "durak_site.settings",
            "SQLITE_PATH": str(db_path),
            "CELERY_EMBEDDED": "true",
            "BOT_PAUSE_SECONDS": BOT_PAUSE,
            "DEBUG": "true",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "CSRF_TRUSTED_ORIGINS": f"http://127.0.0.1:{port}",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def _wait_until_serving(url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}:\n{log_path.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"daphne did not serve {url} in {SERVER_START_TIMEOUT} s:\n{log_path.read_text()[-4000:]}")


class ServerDB:
    """Read-only queries against the server process's SQLite file."""

    def __init__(self, path: Path):
        self.path = path

    def _query(self, sql: str, params=()):
        connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10)
        try:
            return connection.execute(sql, params).fetchall()
        finally:
            connection.close()

    def game(self, table_id: int) -> dict | None:
        """The table's latest game: id, status, move_count, rules, seed, dealer, state_json, result."""
        rows = self._query(
            "SELECT id, status, move_count, rules, seed, dealer, state_json, result FROM games_game "
            "WHERE table_id = ? ORDER BY number DESC LIMIT 1",
            (table_id,),
        )
        if not rows:
            return None
        keys = ("id", "status", "move_count", "rules", "seed", "dealer", "state_json", "result")
        game = dict(zip(keys, rows[0]))
        for key in ("rules", "result"):
            if isinstance(game[key], str):
                game[key] = json.loads(game[key])
        return game

    def game_seats(self, game_id: int) -> list[dict]:
        rows = self._query(
            "SELECT s.number, u.username, s.bot_level, s.place, s.counted_place, s.is_loser "
            "FROM games_gameseat s LEFT JOIN auth_user u ON u.id = s.user_id WHERE s.game_id = ? "
            "ORDER BY s.number",
            (game_id,),
        )
        keys = ("number", "username", "bot_level", "place", "counted_place", "is_loser")
        return [dict(zip(keys, row)) for row in rows]

    def moves(self, game_id: int) -> list[tuple[int, str, str]]:
        return self._query("SELECT seat, action, source FROM games_move WHERE game_id = ? ORDER BY number", (game_id,))


@dataclass
class LiveServer:
    url: str
    db: ServerDB
    log_path: Path


@pytest.fixture(scope="module")
def daphne_server(tmp_path_factory):
    """A daphne process with its own migrated SQLite file: `.url` and `.db` (a ServerDB)."""
    workdir = tmp_path_factory.mktemp("browser-server")
    db_path = workdir / "db.sqlite3"
    port = _free_port()
    env = _server_env(db_path, port)
    migrate = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert migrate.returncode == 0, migrate.stdout + migrate.stderr
    log_path = workdir / "daphne.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "durak_site.asgi:application"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(url + "/", process, log_path)
        yield LiveServer(url=url, db=ServerDB(db_path), log_path=log_path)
    finally:
        process.terminate()  # only the process this fixture started
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        server_log = log_path.read_text(errors="replace")
        if "Traceback" in server_log:
            print(f"--- daphne log ({log_path}) ---\n{server_log[-6000:]}")
    # The database and the log stay in pytest's temporary directory for a post-mortem.


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright (sync API), headless."""
    if not CHROMIUM.exists():
        _unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        _unavailable(f"the playwright package is missing ({exc})")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
