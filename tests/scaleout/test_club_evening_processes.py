"""Issue 15, "Tests": the whole club evening on PostgreSQL + Redis with real worker and beat
processes (tests/scaleout/inner/test_club_evening_processes.py, in a subprocess: Django
reads its settings once per process). A redis-server of the test's own, so no other run's
worker takes this evening's messages. Skips on a bare machine without PostgreSQL or
redis-server; fails under CI=true."""

from __future__ import annotations

from tests.scaleout.runner import run_scenario


def test_issue15_club_evening_with_worker_and_beat_processes(postgres_url, private_redis_port):
    run_scenario(postgres_url, private_redis_port, "durak_evening_processes", "test_club_evening_processes.py")
