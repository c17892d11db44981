"""Issue 20, "Tests": the arena of 20 players again on PostgreSQL + Redis, run by real
`celery worker` and `celery beat` processes (tests/scaleout/inner/test_arena_processes.py, in
a subprocess: Django reads its settings once per process). A redis-server of the test's own,
so no other run's worker takes this arena's messages. Skips on a bare machine without
PostgreSQL or redis-server; fails under CI=true."""

from __future__ import annotations

from tests.scaleout.runner import run_scenario


def test_issue20_an_arena_run_by_worker_and_beat_processes(postgres_url, private_redis_port):
    run_scenario(postgres_url, private_redis_port, "durak_arena_processes", "test_arena_processes.py")
