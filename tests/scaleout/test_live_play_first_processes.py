"""Issue 16, live play first, on PostgreSQL + Redis with the latency worker and the batch
worker as separate real processes (tests/scaleout/inner/test_live_play_first_processes.py, in
a subprocess: Django reads its settings once per process). A redis-server of the test's own,
so no other run's worker takes these messages. Skips on a bare machine without PostgreSQL
or redis-server; fails under CI=true."""

from __future__ import annotations

from tests.scaleout.runner import run_scenario


def test_issue16_live_play_first_with_separate_latency_and_batch_workers(postgres_url, private_redis_port):
    run_scenario(postgres_url, private_redis_port, "durak_live_first", "test_live_play_first_processes.py")
