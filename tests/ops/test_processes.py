"""The production processes: deploy/supervisord.conf and the Procfile list the same ones.

tests/scaleout/test_redis_restart.py runs the supervisord configuration for real.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = {"web", "worker", "batch", "ratings-podkidnoy", "ratings-perevodnoy", "beat"}


def supervisord_commands() -> dict[str, str]:
    config = configparser.RawConfigParser()
    config.read(ROOT / "deploy" / "supervisord.conf")
    commands = {}
    for section in config.sections():
        if section.startswith("program:"):
            if config.has_option(section, "autostart") and config.get(section, "autostart") == "false":
                # Extra web processes for scaling out (docs/scaling.md): started by hand.
                assert config.get(section, "autorestart") == "true", section
                continue
            command = config.get(section, "command")
            command = re.sub(r"^sh -c '(?:exec )?(.*)'$", r"\1", command)
            command = command.replace("python -m ", "").replace('"${PORT:-8000}"', "$PORT").replace("%%", "%")
            commands[section.removeprefix("program:")] = command
            assert config.get(section, "autorestart") == "true", section
    return commands


def procfile_commands() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def test_supervisord_and_the_procfile_run_the_same_processes():
    assert supervisord_commands() == procfile_commands()
    assert set(procfile_commands()) == PROGRAMS


def test_one_worker_per_ratings_queue_one_task_at_a_time():
    commands = procfile_commands()
    for variant in ("podkidnoy", "perevodnoy"):
        assert f"-Q ratings-{variant} -c 1 " in commands[f"ratings-{variant}"]
    assert "-Q default,podkidnoy,perevodnoy " in commands["worker"]
    assert "--scheduler django_celery_beat.schedulers:DatabaseScheduler" in commands["beat"]


def test_live_play_and_batch_work_have_workers_of_their_own():
    """Issue 16, "Live play first": reviews shared the queue that moves the bots."""
    from django.conf import settings

    commands = procfile_commands()
    assert f"-Q {','.join(settings.WORKER_QUEUES)} " in commands["worker"]
    assert not set(settings.BATCH_QUEUES) & set(settings.WORKER_QUEUES)
    assert f"-Q {','.join(settings.BATCH_QUEUES)} " in commands["batch"]
    assert commands["batch"].startswith("nice -n 10 celery ")
    for name, command in commands.items():
        if name != "batch":
            assert "batch" not in command.split(" -Q ", 1)[-1].split(" ")[0].split(","), name
