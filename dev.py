#!/usr/bin/env python3
"""Bootstrap and run the Durak site with nothing but Python 3.11 or newer.

    python3 dev.py serve   # migrate, collect static, serve http://127.0.0.1:8000/
    python3 dev.py test    # run the whole test suite (extra args go to pytest)
    python3 dev.py test --fast  # the unit tier only (no browser, services, slow)
    python3 dev.py check   # ruff, ruff format --check and the import contracts

The script creates .venv with the running interpreter when it is missing,
syncs it to requirements/dev.txt (exact pins with hashes: what the lock does
not name is uninstalled; skipped while the lock is unchanged), then
re-executes itself with the venv's Python.

    python3 dev.py serve --port 8080   # or PORT=8080: when 8000 is taken
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

MINIMUM_PYTHON = (3, 11)  # the oldest Python the site runs on (CI runs it); every newer one is welcome
ROOT = Path(__file__).resolve().parent
VENV_DIR = ROOT / ".venv"
LOCK_FILE = ROOT / "requirements" / "dev.txt"
STAMP_FILE = VENV_DIR / ".requirements.sha256"
# The installer itself, never uninstalled by the sync.
KEEP = {"pip", "setuptools", "wheel"}
IN_VENV_MARKER = "DURAK_DEV_IN_VENV"
HOST = "127.0.0.1"
DEFAULT_PORT = "8000"

USAGE = """usage: python3 dev.py COMMAND [ARGS...]

commands:
  serve [--port N]  run migrations, collect static files and serve the site at
               http://127.0.0.1:8000/ (or port N; PORT in the environment works too)
  test [--fast] [ARGS]
               run the whole test suite with pytest, in parallel (pytest-xdist,
               TEST_WORKERS workers, default one per core), then the tests marked
               `serial` alone; ARGS (paths, -k, -m, -n, -x...) are passed to pytest.
               --fast: only the unit tier, not the tests marked browser,
               services or slow (the quick check while working)
  check        run ruff check, ruff format --check and lint-imports (the
               import contracts in pyproject.toml); fails if any of them fails
  manage COMMAND [ARGS]
               run a Django management command with the settings and the
               database `serve` uses (createsuperuser, changepassword, ...)
  backup [PATH] back up the database `serve` uses (SQLite, or PostgreSQL with
               DATABASE_URL) to PATH: a file, or a folder (default BACKUP_DIR)
  restore PATH [--replace]
               restore a backup into that database; refuses one that holds
               data unless --replace, and a truncated or foreign file
"""


def fail(message: str, code: int = 1) -> None:
    print(f"dev.py: error: {message}", file=sys.stderr)
    sys.exit(code)


def say(message: str) -> None:
    print(f"dev.py: {message}", flush=True)


def venv_python() -> Path:
    if os.name == "nt":
        return VENV_DIR / "Scripts" / "python.exe"
    return VENV_DIR / "bin" / "python"


def python_supported(version) -> bool:
    """Whether `version` (a `sys.version_info`, or (major, minor)) is one the site runs on."""
    return tuple(version[:2]) >= MINIMUM_PYTHON


def check_interpreter() -> None:
    if not python_supported(sys.version_info):
        wanted = ".".join(map(str, MINIMUM_PYTHON))
        found = ".".join(map(str, sys.version_info[:3]))
        fail(
            f"Python {wanted} or newer is required, but this is Python {found} ({sys.executable}). "
            f"Run this script with python{wanted} or a newer python3."
        )


def venv_version(python: Path) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [str(python), "-c", "import sys; print(*sys.version_info[:2])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        return int(out[0]), int(out[1])
    except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
        return None


def ensure_venv() -> Path:
    python = venv_python()
    if not python.exists():
        say(f"creating virtual environment in {VENV_DIR} with {sys.executable}")
        try:
            venv.EnvBuilder(with_pip=True, clear=VENV_DIR.exists()).create(VENV_DIR)
        except Exception as exc:
            fail(f"could not create {VENV_DIR}: {exc}. On Debian/Ubuntu install the python3-venv package.")
    version = venv_version(python)
    if version is None or not python_supported(version):
        fail(
            f"{VENV_DIR} uses Python {version and '.'.join(map(str, version))}, "
            f"older than {'.'.join(map(str, MINIMUM_PYTHON))}; delete it and run again."
        )
    return python


def locked_names(lock: Path) -> set[str]:
    """The normalised names of the packages a compiled lock pins (`name==version`)."""
    names = set()
    for line in lock.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", line)
        if match:
            names.add(re.sub(r"[-_.]+", "-", match.group(1)).lower())
    return names


def installed_names(python: Path) -> set[str]:
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {re.sub(r"[-_.]+", "-", p["name"]).lower() for p in json.loads(out)}


def ensure_requirements(python: Path) -> None:
    """Make the venv hold exactly what the lock pins (hashes checked), nothing more."""
    if not LOCK_FILE.exists():
        fail(f"{LOCK_FILE} is missing")
    digest = hashlib.sha256(LOCK_FILE.read_bytes()).hexdigest()
    if STAMP_FILE.exists() and STAMP_FILE.read_text().strip() == digest:
        return
    say(f"installing {LOCK_FILE.relative_to(ROOT)} into {VENV_DIR.name}")
    result = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--require-hashes",
            "--no-deps",
            "-r",
            str(LOCK_FILE),
        ],
        cwd=ROOT,
    )
    if result.returncode != 0:
        fail(f"pip install -r {LOCK_FILE.name} failed (exit {result.returncode})")
    stale = sorted(installed_names(python) - locked_names(LOCK_FILE) - KEEP)
    if stale:
        say(f"removing packages the lock no longer names: {' '.join(stale)}")
        subprocess.run(
            [str(python), "-m", "pip", "uninstall", "-y", "--disable-pip-version-check", *stale], cwd=ROOT, check=True
        )
    STAMP_FILE.write_text(digest + "\n")


def running_in_venv() -> bool:
    try:
        return Path(sys.prefix).resolve() == VENV_DIR.resolve()
    except OSError:
        return False


def bootstrap() -> None:
    """Make sure .venv is ready, then re-execute this script inside it."""
    if running_in_venv() and os.environ.get(IN_VENV_MARKER) == "1":
        return
    check_interpreter()
    python = ensure_venv()
    ensure_requirements(python)
    env = dict(os.environ, **{IN_VENV_MARKER: "1"})
    args = [str(python), str(Path(__file__).resolve()), *sys.argv[1:]]
    if os.name == "nt":
        sys.exit(subprocess.call(args, env=env))
    os.execve(str(python), args, env)


def manage(*args: str) -> None:
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT)
    if result.returncode != 0:
        fail(f"manage.py {' '.join(args)} failed (exit {result.returncode})")


def local_site_environment() -> None:
    """What `serve` and `manage` share, so that a command works on the site's own database."""
    # Local play: debug pages on, unless the caller decided otherwise.
    os.environ.setdefault("DEBUG", "true")
    # The site's settings (tests name their own in pyproject.toml, so only here).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")


def cmd_manage(extra: list[str]) -> None:
    if not extra:
        fail("manage needs a command, e.g. python3 dev.py manage createsuperuser", code=2)
    local_site_environment()
    os.execv(sys.executable, [sys.executable, "manage.py", *extra])


def cmd_backup(extra: list[str]) -> None:
    cmd_manage(["backup", *extra])


def cmd_restore(extra: list[str]) -> None:
    if not extra:
        fail(
            "restore needs the backup's path, e.g. python3 dev.py restore db-backups/durak-20260101-031000.sqlite3",
            code=2,
        )
    cmd_manage(["restore", *extra])


def cmd_serve(extra: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="dev.py serve")
    parser.add_argument(
        "--port",
        default=os.environ.get("PORT") or DEFAULT_PORT,
        help="the port to serve on (default: $PORT, else 8000)",
    )
    options = parser.parse_args(extra)
    if not options.port.isdigit() or not 0 < int(options.port) < 65536:
        fail(f"--port must be a number from 1 to 65535, got {options.port!r}")
    local_site_environment()
    manage("migrate", "--noinput")
    manage("collectstatic", "--noinput", "--verbosity", "0")
    daphne = [sys.executable, "-m", "daphne", "-b", HOST, "-p", options.port, "durak_site.asgi:application"]
    say(f"serving the site at http://{HOST}:{options.port}/ (Ctrl+C to stop)")
    os.execv(sys.executable, daphne)


# The unit tier: what `test --fast` runs (the markers are assigned in tests/conftest.py).
FAST_MARKERS = "not browser and not services and not slow"
# pytest's "no tests collected".
NO_TESTS = 5


def _split_marker_option(args: list[str]) -> tuple[list[str], str | None]:
    """The arguments without `-m EXPR` (or `-mEXPR`), and EXPR (the last one, as pytest takes)."""
    rest, marker = [], None
    it = iter(args)
    for arg in it:
        if arg == "-m":
            marker = next(it, "")
        elif arg.startswith("-m") and not arg.startswith("--"):
            marker = arg[2:]
        else:
            rest.append(arg)
    return rest, marker


def _and(expression: str | None, condition: str) -> str:
    return f"({expression}) and {condition}" if expression else condition


def pytest_passes(extra: list[str], environ: dict[str, str]) -> list[list[str]]:
    """pytest's arguments for the two passes of `dev.py test`.

    First everything not marked `serial`, spread over pytest-xdist workers
    (TEST_WORKERS, default "auto": one per core; `-n` among the arguments wins);
    tests of the `services` and `browser` tiers each keep to one worker
    (--dist loadgroup, with the groups of tests/conftest.py's scheduler). Then the `serial` tests, which measure time
    and must not share the machine with a worker, in one process. `--fast`: the
    unit tier alone, in the first pass only.
    """
    args, marker = _split_marker_option(extra)
    fast = "--fast" in args
    if fast:
        args = [a for a in args if a != "--fast"]
        marker = _and(marker, FAST_MARKERS)
    xdist = not any(a == "no:xdist" or a == "-pno:xdist" for a in args)
    parallel: list[str] = []
    if xdist and not any(a in {"-n", "--numprocesses"} or a.startswith(("-n", "--numprocesses=")) for a in args):
        parallel += ["-n", environ.get("TEST_WORKERS") or "auto"]
    if xdist and not any(a == "--dist" or a.startswith("--dist=") for a in args):
        parallel += ["--dist", "loadgroup"]
    if fast:
        # Every serial test is slow or needs services (tests/test_tiers.py): one pass.
        return [[*parallel, "-m", marker, *args]]
    first = [*parallel, "-m", _and(marker, "not serial"), *args]
    second = ["-m", _and(marker, "serial"), *args, *(["-n", "0"] if xdist else [])]
    return [first, second]


def combined_exit(codes: list[int]) -> int:
    """One exit code for the passes: the first failure's; 1 when no pass collected a test."""
    for code in codes:
        if code not in (0, NO_TESTS):
            return code
    return 1 if all(code == NO_TESTS for code in codes) else 0


def cmd_test(extra: list[str]) -> None:
    # The tests' own settings module comes from pyproject.toml; an inherited
    # DJANGO_SETTINGS_MODULE would take precedence over it.
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    codes: list[int] = []
    stop_at_failure = any(a in {"-x", "--exitfirst"} or a.startswith("--maxfail") for a in extra)
    passes = pytest_passes(extra, env)
    for number, args in enumerate(passes, start=1):
        say(f"test pass {number} of {len(passes)}: pytest {' '.join(args)}")
        codes.append(subprocess.call([sys.executable, "-m", "pytest", *args], cwd=ROOT, env=env))
        # Interrupted, an internal or a usage error: the second pass would say the same.
        if codes[-1] not in (0, 1, NO_TESTS) or (codes[-1] == 1 and stop_at_failure):
            break
    code = combined_exit(codes)
    if all(c == NO_TESTS for c in codes):
        print("dev.py: pytest collected no tests; treating that as a failure", file=sys.stderr)
    sys.exit(code)


CHECKS = (
    ("ruff check", ["ruff", "check", "."]),
    ("ruff format --check", ["ruff", "format", "--check", "."]),
    ("lint-imports", ["lint-imports", "--no-cache"]),
)


def cmd_check(extra: list[str]) -> None:
    if extra:
        fail(f"check takes no arguments, got {' '.join(extra)}", code=2)
    tools = Path(sys.executable).parent
    failed = []
    for name, (tool, *args) in CHECKS:
        say(f"running {name}")
        if subprocess.call([str(tools / tool), *args], cwd=ROOT) != 0:
            failed.append(name)
    if failed:
        fail(f"failed: {', '.join(failed)}")
    say("all checks passed")


COMMANDS = {
    "serve": cmd_serve,
    "test": cmd_test,
    "check": cmd_check,
    "manage": cmd_manage,
    "backup": cmd_backup,
    "restore": cmd_restore,
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] in {"-h", "--help", "help"}:
        print(USAGE, end="")
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    command = sys.argv[1]
    if command not in COMMANDS:
        print(USAGE, end="", file=sys.stderr)
        fail(f"unknown command {command!r}", code=2)
    bootstrap()
    os.chdir(ROOT)
    COMMANDS[command](sys.argv[2:])


if __name__ == "__main__":
    main()
