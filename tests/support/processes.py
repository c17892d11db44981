"""Real `celery worker` and `celery beat` processes on the test's own database, for the
scale-out tests that run in a subprocess with DATABASE_URL (PostgreSQL) and REDIS_URL
set (tests/scaleout/runner.py). Each process logs to a file of its own; all of them are
stopped (terminated, killed after 20 s) however the test ends."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Worker:
    """One `celery worker`: its queues, pool size, and whether it runs at a lower CPU
    priority (the batch worker does, as in deploy/supervisord.conf)."""

    queues: tuple[str, ...]
    concurrency: int = 1
    nice: bool = False


def wait_for(check, what: str, seconds: float, every: float = 0.2):
    """`check()`'s first true value, polled for at most `seconds`; fails the test after."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"waited {seconds:.0f} s for {what}", pytrace=False)
        time.sleep(every)


def ran(log: str, task: str) -> bool:
    """Whether a worker's log shows it took `task` (its banner lists every registered task)."""
    return f"Task {task}[" in log


def database_url() -> str:
    """The URL of the test database this process uses (test_<name>), for the processes."""
    from django.db import connection

    db = connection.settings_dict
    assert db["ENGINE"].endswith("postgresql"), "the processes need PostgreSQL (DATABASE_URL)"
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def celery_processes(log_dir: Path, workers: dict[str, Worker], beat: bool = True, start_seconds: float = 60):
    """Start `workers` ({name: Worker}) and, if `beat`, one beat; yield {name: log path}
    once every worker is ready."""
    from django.conf import settings

    assert settings.REDIS_URL, "the processes need a Redis broker (REDIS_URL)"
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    env["DATABASE_URL"] = database_url()
    celery = [sys.executable, "-m", "celery", "-A", "durak_site"]
    commands = {}
    for name, worker in workers.items():
        command = [*celery, "worker", "-Q", ",".join(worker.queues), "-l", "info"]
        command += ["--concurrency", str(worker.concurrency), "--without-mingle", "--without-gossip"]
        command += ["-n", f"{name}-{os.getpid()}@%h"]
        commands[name] = ["nice", "-n", "10", *command] if worker.nice else command
    if beat:
        commands["beat"] = [*celery, "beat", "-l", "info"]
    logs = {name: log_dir / f"{name}.log" for name in commands}
    processes: dict[str, subprocess.Popen] = {}
    try:
        for name, command in commands.items():
            with logs[name].open("w") as log:
                processes[name] = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        for name in workers:

            def ready(name=name):
                assert processes[name].poll() is None, f"{name} exited:\n{logs[name].read_text()[-3000:]}"
                return "ready." in logs[name].read_text()

            wait_for(ready, f"the {name} worker to start", start_seconds)
        yield logs
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.terminate()
        for process in processes.values():
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
