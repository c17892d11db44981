"""Each variant's ratings on its own queue, consumed by its own worker process
(issue 8, item 6), against PostgreSQL and a private Redis: while the
perevodnoy ratings are held up, a podkidnoy game is rated all the same, and
the perevodnoy one follows as soon as its variant is free again.

Django reads its settings once per process, so everything on the PostgreSQL
side runs in subprocesses (`manage.py migrate`, `manage.py shell -c`, two
`celery worker` processes with concurrency 1); the test itself holds the
perevodnoy state row's lock with a plain psycopg connection, as a long
recomputation of that variant would.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
WAIT = 90

SETUP = """
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from games.models import Game, GameSeat, Table
User = get_user_model()
ids = {}
for variant, names in (("podkidnoy", ("pa", "pb")), ("perevodnoy", ("va", "vb"))):
    users = [User.objects.create_user(username=n, password="x") for n in names]
    table = Table.objects.create(rules={"players": 2}, variant=variant, seats_count=2, rated=True, status="finished")
    game = Game.objects.create(
        table=table, number=1, rules={"players": 2}, variant=variant, rated=True, seed="s", seed_hash="h",
        status="finished", state_json="", result={}, finished_at=timezone.now() - timedelta(minutes=1),
    )
    for seat, user in enumerate(users):
        GameSeat.objects.create(game=game, number=seat, user=user, team=seat, place=seat + 1, counted_place=seat + 1)
    ids[variant] = game.pk
print("IDS=" + json.dumps(ids))
"""

ENQUEUE = """
from ratings import services
services.enqueue_rate_game({podkidnoy}, "podkidnoy")
services.enqueue_rate_game({perevodnoy}, "perevodnoy")
"""


@pytest.fixture
def private_redis_url(private_redis_port):
    return f"redis://127.0.0.1:{private_redis_port}/0"


@pytest.fixture
def scratch_postgres(postgres_url):
    import psycopg

    name = f"durak_ratings_queues_{os.getpid()}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(postgres_url)
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run(env, *args) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def rated(database_url: str, game_id: int) -> bool:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM ratings_ratedgame WHERE game_id = %s", [game_id]).fetchone() is not None


def wait_until(check, what: str) -> float:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < WAIT, f"{what} did not happen in {WAIT} s"
        time.sleep(0.2)
    return time.monotonic() - started


def test_a_podkidnoy_game_never_waits_for_a_perevodnoy_one(scratch_postgres, private_redis_url):
    import psycopg

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
    env.update(
        {
            "DATABASE_URL": scratch_postgres,
            "REDIS_URL": private_redis_url,
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "CELERY_EMBEDDED": "false",
            "LOG_LEVEL": "WARNING",
        }
    )
    run(env, "migrate", "--verbosity", "0")
    out = run(env, "shell", "-c", SETUP)
    ids = json.loads(out.split("IDS=", 1)[1].strip())

    workers = []
    lock = psycopg.connect(scratch_postgres)
    try:
        for variant in ("podkidnoy", "perevodnoy"):
            workers.append(
                subprocess.Popen(
                    [
                        sys.executable, "-m", "celery", "-A", "durak_site", "worker",
                        "-Q", f"ratings-{variant}", "-c", "1", "-n", f"ratings-{variant}-{os.getpid()}@localhost",
                        "--without-mingle", "--without-gossip", "-l", "warning",
                    ],
                    cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
            )  # fmt: skip
        # A long perevodnoy job holds its variant's lock.
        lock.execute("SELECT * FROM ratings_variantstate WHERE variant = 'perevodnoy' FOR UPDATE")
        run(env, "shell", "-c", ENQUEUE.format(**ids))

        wait_until(lambda: rated(scratch_postgres, ids["podkidnoy"]), "the podkidnoy rating")
        time.sleep(1)
        assert not rated(scratch_postgres, ids["perevodnoy"]), "the perevodnoy worker should be waiting for its lock"
        assert all(worker.poll() is None for worker in workers)

        lock.rollback()  # the perevodnoy job is over
        wait_until(lambda: rated(scratch_postgres, ids["perevodnoy"]), "the perevodnoy rating")
        with psycopg.connect(scratch_postgres, autocommit=True) as conn:
            rows = conn.execute("SELECT variant, count(*) FROM ratings_rating GROUP BY variant ORDER BY 1").fetchall()
        assert rows == [("perevodnoy", 2), ("podkidnoy", 2)]
    finally:
        lock.close()
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(20)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(5)
