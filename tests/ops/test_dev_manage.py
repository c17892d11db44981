"""Issue 17, "Setup": `python3 dev.py manage <command>` runs a management command with the
settings and the database `serve` uses, so the admin made there is the site's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def dev(*args: str, database: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE", "DEBUG", "PYTEST_XDIST_WORKER"}}
    env.update(SQLITE_PATH=str(database), **extra)
    return subprocess.run(
        [sys.executable, "dev.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_issue17_dev_py_manage_makes_an_admin_in_the_sites_own_database(tmp_path):
    database = tmp_path / "site.sqlite3"
    assert dev("manage", "migrate", "--noinput", database=database).returncode == 0
    made = dev(
        "manage",
        "createsuperuser",
        "--noinput",
        "--username",
        "boss",
        "--email",
        "boss@example.org",
        database=database,
        DJANGO_SUPERUSER_PASSWORD="a long enough password 42",
    )
    assert made.returncode == 0, made.stderr
    shown = dev(
        "manage",
        "shell",
        "-c",
        "from django.contrib.auth.models import User; print(User.objects.get(username='boss').is_superuser)",
        database=database,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().splitlines()[-1] == "True"


def test_issue17_dev_py_manage_without_a_command_says_how_to_use_it(tmp_path):
    answered = dev("manage", database=tmp_path / "site.sqlite3")
    assert answered.returncode == 2
    assert "python3 dev.py manage createsuperuser" in answered.stderr


def test_dev_py_backup_and_restore_work_on_the_sites_own_database(tmp_path):
    database = tmp_path / "site.sqlite3"
    assert dev("manage", "migrate", "--noinput", database=database).returncode == 0
    made = dev("backup", str(tmp_path / "copy.sqlite3"), database=database)
    assert made.returncode == 0, made.stderr
    assert "copy.sqlite3" in made.stdout and (tmp_path / "copy.sqlite3").stat().st_size > 0
    # a migrated database without an account holds no data: the restore goes through
    restored = dev("restore", str(tmp_path / "copy.sqlite3"), database=database)
    assert restored.returncode == 0, restored.stderr
    assert dev("restore", database=database).returncode == 2  # the path is needed
