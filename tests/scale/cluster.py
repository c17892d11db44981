"""A site of several processes on one machine, for the scale tests.

PostgreSQL (a database named with this test run's pid, migrated here) and Redis
(a database number of its own) shared by daphne processes on free ports, Celery
workers and one beat, each a child process started with the site's own
settings (durak_site.settings) from the environment. The test process reads
the shared database with psycopg (its own Django settings point elsewhere).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 40


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, postgres_url: str, redis_url: str, tmp_path: Path, bot_pause: str = "0.2,0.3"):
        import psycopg

        self.psycopg = psycopg
        pg = urlsplit(postgres_url)
        self.admin_url = postgres_url
        self.db_name = f"durak_scale_{os.getpid()}"
        self.database_url = urlunsplit((pg.scheme, pg.netloc, f"/{self.db_name}", "", ""))
        r = urlsplit(redis_url)
        self.redis_db = 1 + os.getpid() % 15  # a number of its own: parallel runs differ by pid
        self.redis_url = urlunsplit((r.scheme, r.netloc, f"/{self.redis_db}", "", ""))
        self.logs = tmp_path
        self.processes: dict[str, subprocess.Popen] = {}
        self.ports: dict[str, int] = {}
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_SETTINGS"))}
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "durak_site.settings",
                "DATABASE_URL": self.database_url,
                "REDIS_URL": self.redis_url,
                # DEBUG on, as `dev.py serve` and the browser tests run: pages need no collectstatic.
                "DEBUG": "true",
                "SECRET_KEY": "scale-test-" + "k7Q2x" * 12,
                "SECURE_SSL_REDIRECT": "false",
                "SECURE_COOKIES": "false",
                "SECURE_HSTS_SECONDS": "0",
                "CELERY_EMBEDDED": "false",
                "BOT_PAUSE_SECONDS": bot_pause,
                # Every socket comes from this machine (no --proxy-headers): no per-address cap.
                "SOCKETS_PER_ADDRESS": "0",
                "LOG_LEVEL": "WARNING",
                "PYTHONUNBUFFERED": "1",
            }
        )
        self.env = env

    # ------------------------------------------------------------ database

    def create_database(self):
        with self.psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{self.db_name}"')
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v", "0", "--no-input"],
            cwd=ROOT,
            env=self.env,
            check=True,
            timeout=180,
        )

    def clear_redis(self):
        """Empty this site's Redis database: a run before this one that drew the same
        number left its queues and its rate-limit counters there (the limits count
        sign-ups per address and hour, and every test signs up from 127.0.0.1)."""
        import redis

        client = redis.Redis.from_url(self.redis_url)
        try:
            client.flushdb()
        finally:
            client.close()

    def drop_database(self):
        with self.psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')

    def query(self, sql: str, *params) -> list[tuple]:
        with self.psycopg.connect(self.database_url, autocommit=True) as conn:
            return conn.execute(sql, params).fetchall()

    def moves(self, game_id: int) -> list[tuple]:
        """(number, seat, action, source) of the game's move log."""
        return self.query(
            "SELECT number, seat, action, source FROM games_move WHERE game_id = %s ORDER BY number", game_id
        )

    def game(self, table_id: int) -> dict:
        row = self.query(
            "SELECT id, move_count, status, bot_due_at, deadline FROM games_game WHERE table_id = %s "
            "ORDER BY number DESC LIMIT 1",
            table_id,
        )[0]
        return dict(zip(("id", "move_count", "status", "bot_due_at", "deadline"), row))

    def game_by_id(self, game_id: int) -> dict:
        row = self.query("SELECT id, move_count, status FROM games_game WHERE id = %s", game_id)[0]
        return dict(zip(("id", "move_count", "status"), row))

    # ------------------------------------------------------------ processes

    def _start(self, name: str, command: list[str], **env) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - kept open for the child's life
        process = subprocess.Popen(command, cwd=ROOT, env={**self.env, **env}, stdout=log, stderr=subprocess.STDOUT)
        self.processes[name] = process
        return process

    def start_web(self, name: str) -> str:
        """A daphne on a free port; its base URL once it answers HTTP."""
        port = free_port()
        self.ports[name] = port
        process = self._start(
            name,
            [
                sys.executable,
                "-m",
                "daphne",
                "-v",
                "0",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "durak_site.asgi:application",
            ],
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited: {self.log(name)}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return self.url(name)
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{name} did not listen: {self.log(name)}")

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}"

    def start_worker(self, name: str) -> subprocess.Popen:
        # One process (solo pool), so that SIGKILL of it kills the task it runs.
        return self._start(
            name,
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "durak_site",
                "worker",
                "-P",
                "solo",
                "-Q",
                "default,podkidnoy,perevodnoy",
                "-n",
                f"{name}-{os.getpid()}@%h",
                "-l",
                "info",
                "--without-gossip",
                "--without-mingle",
            ],
            LOG_LEVEL="INFO",  # its "ready" line tells the test it consumes
        )

    def start_beat(self) -> subprocess.Popen:
        return self._start(
            "beat",
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "durak_site",
                "beat",
                "-l",
                "info",
                "--scheduler",
                "django_celery_beat.schedulers:DatabaseScheduler",
                "-s",
                str(self.logs / "beat-schedule"),
            ],
        )

    def wait_for_log(self, name: str, text: str, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log(name):
                return
            if self.processes[name].poll() is not None:
                raise RuntimeError(f"{name} exited: {self.log(name)}")
            time.sleep(0.2)
        raise RuntimeError(f"{name} never logged {text!r}: {self.log(name)[-3000:]}")

    def log(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def kill(self, name: str) -> None:
        """SIGKILL: no shutdown, no goodbye to Redis or PostgreSQL."""
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    def stop_all(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + 2
        for process in self.processes.values():
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.processes.clear()

    def send_task(self, name: str, args: list, queue: str, eta=None) -> None:
        """Send a Celery task to this site's broker, as the site does (by name)."""
        from celery import Celery

        app = Celery(broker=self.redis_url)
        try:
            app.send_task(name, args=args, queue=queue, eta=eta)
        finally:
            app.close()
