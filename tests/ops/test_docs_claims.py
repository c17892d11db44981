"""README and docs checked against the code, claim by claim (issue 21, point 4).

Each test reads a claim out of README.md or docs/*.md (a table's rows, a list of
names) and checks it against the code, so a renamed setting, a moved folder, a
dropped command or a program missing from one of the two process files fails
here rather than misleading the next reader.
"""

from __future__ import annotations

import ast
import configparser
import json
import os
import re
import secrets
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from django.core.management import get_commands

from games import engine

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {path.name: path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md"))}
TICKED = re.compile(r"`([^`]+)`")


def section(text: str, title: str) -> str:
    """The text under a heading, up to the next heading of the same or a higher level (code blocks skipped)."""
    lines, start, level, fenced = text.splitlines(), None, 0, False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        heading = re.match(r"(#+) (.*)", line) if not fenced else None
        if heading and start is None and heading.group(2) == title:
            start, level = i + 1, len(heading.group(1))
        elif heading and start is not None and len(heading.group(1)) <= level:
            return "\n".join(lines[start:i])
    assert start is not None, f"no section {title!r}"
    return "\n".join(lines[start:])


def table(text: str, first_header: str) -> list[list[str]]:
    """The rows (as cells) of the first Markdown table whose first column is headed `first_header`."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and line.strip("| ").split(" |")[0].strip() == first_header:
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append([cell.strip() for cell in row.strip().strip("|").split(" | ")])
            return rows
    raise AssertionError(f"no table headed {first_header!r}")


# --- Configuration: every variable is read by the settings, with the default the table gives ---

CONFIGURATION = table(section(README, "Configuration"), "Variable")
VARIABLES = [name for row in CONFIGURATION for name in TICKED.findall(row[0])]
SETTINGS_SOURCE = (ROOT / "durak_site" / "settings.py").read_text(encoding="utf-8")

PROBE = """
import json, sys
try:
    import durak_site.settings as s
except Exception as error:
    print(json.dumps({"refused": type(error).__name__}))
    sys.exit()
db = s.DATABASES["default"]
print(json.dumps({
    "DEBUG": s.DEBUG, "SECRET_KEY": s.SECRET_KEY, "DEV_SECRET_KEY": s.DEV_SECRET_KEY,
    "ENGINE": db["ENGINE"], "NAME": str(db.get("NAME")), "CONN_MAX_AGE": db.get("CONN_MAX_AGE", 0),
    "init_command": db.get("OPTIONS", {}).get("init_command", ""), "pool": db.get("OPTIONS", {}).get("pool"),
    "BASE_DIR": str(s.BASE_DIR), "CHANNEL_LAYER": s.CHANNEL_LAYERS["default"]["BACKEND"],
    "CELERY_BROKER_URL": s.CELERY_BROKER_URL,
    "SECURE_SSL_REDIRECT": s.SECURE_SSL_REDIRECT,
    "SECURE_COOKIES": [s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE],
    "SECURE_HSTS_SECONDS": s.SECURE_HSTS_SECONDS,
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": s.SECURE_HSTS_INCLUDE_SUBDOMAINS,
    "SECURE_HSTS_PRELOAD": s.SECURE_HSTS_PRELOAD,
    "SECURE_PROXY_SSL_HEADER": getattr(s, "SECURE_PROXY_SSL_HEADER", None),
    "LOGIN_FAILURE_LIMIT": s.AXES_FAILURE_LIMIT,
    "LOGIN_COOLOFF_MINUTES": s.AXES_COOLOFF_TIME.total_seconds() / 60,
    "LOGIN_ADDRESS_FAILURE_LIMIT": s.LOGIN_ADDRESS_FAILURE_LIMIT,
    "BACKUP_DIR": str(s.BACKUP_DIR), "BACKUP_KEEP": s.BACKUP_KEEP,
    **{name: getattr(s, name) for name in (
        "MAX_WAITING_TABLES", "TABLE_CREATE_RATE", "GUEST_CREATE_RATE", "SIGNUP_RATE", "PAIR_INVITE_RATE",
        "MAIL_LINK_RATE", "SOCKETS_PER_USER", "SOCKETS_PER_ADDRESS", "SOCKET_LEASE_SECONDS", "REVIEWS_PER_DAY",
        "LOBBY_REFRESH_SECONDS", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "LOG_LEVEL", "TIME_ZONE",
        "CELERY_EMBEDDED", "BOT_PAUSE_SECONDS", "GC_GEN0_THRESHOLD")},
}))
"""


def settings_with(**env: str) -> dict:
    """The site's settings with none of the README's variables set but `env`."""
    clean = {k: v for k, v in os.environ.items() if k not in VARIABLES and k != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def literal(text: str):
    """A default as the table writes it: `10`, `1.0`, `true`, `10/600`, `0.7,1.6`, `a,b`, `INFO`."""
    if text in {"true", "false"}:
        return text == "true"
    if re.fullmatch(r"\d+/\d+", text):
        return [int(part) for part in text.split("/")]
    if "," in text:
        return [literal(part) for part in text.split(",")]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# Rows whose default is a sentence rather than one value per variable, each with its own check below.
SPOKEN_DEFAULTS = {
    "BACKUP_DIR",
    "DATABASE_URL",
    "REDIS_URL",
    "SECRET_KEY",
    "SECURE_HSTS_SECONDS",
    "SECURE_PROXY_SSL_HEADER",
    "CSRF_TRUSTED_ORIGINS",
    "SQLITE_PATH",
    "PORT",
    "DATABASE_POOL_MIN_SIZE",
    "DATABASE_POOL_MAX_SIZE",
}


def test_issue21_every_configuration_variable_is_read_by_the_settings():
    assert len(VARIABLES) >= 30
    read = set(re.findall(r'env_(?:str|bool|int|list|rate)\(\s*"([A-Z0-9_]+)"', SETTINGS_SOURCE))
    # PORT is the port of the processes, not a setting: dev.py, the Procfile and supervisord read it.
    assert "PORT" not in read
    assert 'os.environ.get("PORT")' in (ROOT / "dev.py").read_text(encoding="utf-8")
    assert "$PORT" in (ROOT / "Procfile").read_text(encoding="utf-8")
    assert "${PORT:-8000}" in (ROOT / "deploy" / "supervisord.conf").read_text(encoding="utf-8")
    assert sorted(set(VARIABLES) - read - {"PORT"}) == []
    # and the other way round: every variable the settings read is in the table (or its Effect column)
    assert sorted(read - set(VARIABLES) - set(TICKED.findall(section(README, "Configuration")))) == []


def test_issue21_the_configuration_table_gives_the_defaults_the_settings_have():
    production = settings_with(SECRET_KEY=secrets.token_urlsafe(50))
    checked = []
    for names, default, _effect in CONFIGURATION:
        names = TICKED.findall(names)
        if set(names) & SPOKEN_DEFAULTS:
            continue
        # `DEBUG`, `REDIS_URL` in a default are its conditions ("`true` unless `DEBUG`"), not values.
        values = [literal(value) for value in TICKED.findall(default) if value not in VARIABLES]
        assert len(values) == len(names), (names, default)
        for name, value in zip(names, values, strict=True):
            actual = production[name]
            if name == "SECURE_COOKIES":
                actual = all(actual)
            assert actual == value, (name, actual, value)
            checked.append(name)
    assert len(checked) + len(SPOKEN_DEFAULTS) == len(VARIABLES)


def test_issue21_the_spoken_defaults_of_the_configuration_table():
    rows = {name: row[1] for row in CONFIGURATION for name in TICKED.findall(row[0])}
    key = secrets.token_urlsafe(50)
    production = settings_with(SECRET_KEY=key)
    local = settings_with(DEBUG="true")

    assert rows["DATABASE_URL"].startswith("unset: SQLite file `db.sqlite3` (WAL mode, persistent connections)")
    assert production["ENGINE"] == "django.db.backends.sqlite3"
    assert production["NAME"] == str(Path(production["BASE_DIR"]) / "db.sqlite3")
    assert "journal_mode=WAL" in production["init_command"] and production["CONN_MAX_AGE"] is None
    assert rows["SQLITE_PATH"] == "`db.sqlite3` in the project"
    assert settings_with(SECRET_KEY=key, SQLITE_PATH="/tmp/other.sqlite3")["NAME"] == "/tmp/other.sqlite3"
    assert rows["BACKUP_DIR"].startswith("`db-backups` in the project")
    assert production["BACKUP_DIR"] == str(Path(production["BASE_DIR"]) / "db-backups")

    assert rows["DATABASE_POOL_MIN_SIZE"] == "`2`, `10`"
    postgres = settings_with(SECRET_KEY=key, DATABASE_URL="postgres://user:pass@host:5432/durak")
    assert postgres["pool"]["min_size"] == 2 and postgres["pool"]["max_size"] == 10
    assert postgres["CONN_MAX_AGE"] == 0  # the pool, not persistent connections

    assert rows["REDIS_URL"] == "unset: in-memory channel layer and `memory://` Celery broker"
    assert production["CHANNEL_LAYER"] == "channels.layers.InMemoryChannelLayer"
    assert production["CELERY_BROKER_URL"] == "memory://"
    redis = settings_with(SECRET_KEY=key, REDIS_URL="redis://host:6379/0")
    assert redis["CHANNEL_LAYER"] == "channels_redis.core.RedisChannelLayer"
    assert redis["CELERY_BROKER_URL"] == "redis://host:6379/0" and redis["CELERY_EMBEDDED"] is False

    assert rows["SECRET_KEY"] == "none (the development key when `DEBUG=true`)"
    assert settings_with() == {"refused": "ImproperlyConfigured"}
    assert local["SECRET_KEY"] == local["DEV_SECRET_KEY"]

    assert rows["SECURE_SSL_REDIRECT"] == rows["SECURE_COOKIES"] == "`true` unless `DEBUG`"
    assert local["SECURE_SSL_REDIRECT"] is False and local["SECURE_COOKIES"] == [False, False]
    assert rows["SECURE_HSTS_SECONDS"] == "one year unless `DEBUG` (then `0`)"
    assert production["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600 and local["SECURE_HSTS_SECONDS"] == 0
    assert production["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is production["SECURE_HSTS_PRELOAD"] is True
    assert local["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is local["SECURE_HSTS_PRELOAD"] is False

    assert rows["SECURE_PROXY_SSL_HEADER"] == "unset" and production["SECURE_PROXY_SSL_HEADER"] is None
    proxied = settings_with(SECRET_KEY=key, SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto")
    assert proxied["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert rows["CSRF_TRUSTED_ORIGINS"] == "empty" and production["CSRF_TRUSTED_ORIGINS"] == []

    assert rows["PORT"] == "`8000`"
    assert re.search(r'^DEFAULT_PORT = "8000"$', (ROOT / "dev.py").read_text(encoding="utf-8"), re.MULTILINE)


# --- Layout: every path exists, and the lists of modules are the modules ---

LAYOUT = table(section(README, "Layout"), "Path")


def test_issue21_every_path_of_the_layout_table_exists():
    missing = []
    for paths, holds in LAYOUT:
        row_paths = TICKED.findall(paths)
        assert row_paths, paths
        missing += [path for path in row_paths if not (ROOT / path).exists()]
        # Files and folders the row names (`sockets.py`, `formats/`, `partials/`) are in the project or
        # in the row's folder (`partials/`: in its folders).
        folders = [ROOT / path for path in row_paths if (ROOT / path).is_dir()]
        for name in TICKED.findall(holds):
            if re.fullmatch(r"[\w./-]+(\.py|\.in|\.txt|/)", name) and not name.startswith("/"):
                if not (ROOT / name).exists() and not any(next(f.rglob(name.rstrip("/")), None) for f in folders):
                    missing.append(f"{paths}: {name}")
    assert missing == []


def layout_row(path: str) -> str:
    return next(holds for paths, holds in LAYOUT if f"`{path}`" in paths)


@pytest.mark.parametrize(
    ("row", "package"), [("games/services/", "games/services"), ("tournaments/", "tournaments/services")]
)
def test_issue21_the_layout_names_every_service_module_and_no_other(row, package):
    named = {name for name in TICKED.findall(layout_row(row)) if re.fullmatch(r"[a-z_]+", name)}
    modules = {path.stem for path in (ROOT / package).glob("*.py")} - {"__init__"}
    assert named == modules


def test_issue21_the_layout_names_every_tests_folder_and_no_other():
    named = {name.rstrip("/") for name in TICKED.findall(layout_row("tests/")) if name.endswith("/")}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    # support/ holds the tests' helpers, no tests.
    assert named == folders - {"support"}


# --- Management commands: every one named exists ---


def named_commands() -> set[str]:
    texts = [README, *DOCS.values()]
    names = {name for text in texts for name in re.findall(r"manage\.py (\w+)", text)}
    names |= {re.sub(r" .*", "", name) for name in TICKED.findall(layout_row("games/management/commands/"))}
    names |= {name for name in TICKED.findall(layout_row("bench/")) if re.fullmatch(r"[a-z_]+", name)}
    names |= {name.split()[0] for name in TICKED.findall(layout_row("ratings/")) if name.startswith("recalc_")}
    names |= {name.split()[0] for text in DOCS.values() for name in TICKED.findall(text) if name.startswith("recalc_")}
    return names


def test_issue21_every_management_command_named_in_readme_and_docs_exists():
    names = named_commands()
    assert {"verify_game", "recalc_ratings", "bench_tables", "loadtest", "rating_study"} <= names
    assert sorted(names - set(get_commands())) == []


def test_issue21_the_layout_lists_every_command_of_the_site_and_of_bench():
    ours = {
        path.stem
        for app in ("games", "ratings", "tournaments", "reviews", "bench")
        for path in (ROOT / app / "management" / "commands").glob("*.py")
        if path.stem != "__init__"
    }
    assert sorted(ours - named_commands()) == []


# --- Production processes: the table, the Procfile and supervisord agree ---

PROGRAMS = table(section(README, "Production processes"), "Program")
PROCFILE = dict(
    line.split(": ", 1) for line in (ROOT / "Procfile").read_text(encoding="utf-8").splitlines() if line.strip()
)
SUPERVISORD_CONF = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
SUPERVISORD_CONF.read(ROOT / "deploy" / "supervisord.conf", encoding="utf-8")
SUPERVISORD = {
    name.removeprefix("program:"): SUPERVISORD_CONF[name]["command"]
    for name in SUPERVISORD_CONF.sections()
    if name.startswith("program:")
}


def tokens(command: str) -> list[str]:
    """A command's words, without supervisord's and the shell's wrapping."""
    command = command.replace("sh -c 'exec ", "").rstrip("'").replace('"${PORT:-8000}"', "$PORT")
    return command.replace("python -m ", "").replace("%%", "%").split()


def test_issue21_every_program_of_the_production_table_is_in_supervisord_and_the_procfile():
    documented = {}
    for names, command, _does in PROGRAMS:
        for name in TICKED.findall(names):
            variant = name.removeprefix("ratings-")
            documented[name] = TICKED.findall(command)[0].replace("<variant>", variant)
    assert set(documented) == set(PROCFILE)
    # web-more: the extra web processes of one machine, docs/scaling.md "On one machine".
    assert set(documented) | {"web-more"} == set(SUPERVISORD) and "web-more" in DOCS["scaling.md"]
    for name, command in documented.items():
        for where in (PROCFILE[name], SUPERVISORD[name]):
            words = tokens(where)
            assert all(word in words for word in tokens(command)), (name, command, where)


def test_issue21_the_queues_of_the_workers_are_the_settings():
    from django.conf import settings

    def queues(command: str) -> list[str]:
        words = tokens(command)
        return words[words.index("-Q") + 1].split(",")

    assert queues(PROCFILE["worker"]) == queues(SUPERVISORD["worker"]) == list(settings.WORKER_QUEUES)
    assert queues(PROCFILE["batch"]) == queues(SUPERVISORD["batch"]) == list(settings.BATCH_QUEUES)
    for variant in engine.VARIANTS:
        assert queues(PROCFILE[f"ratings-{variant}"]) == [f"ratings-{variant}"]
    processes = table(DOCS["scaling.md"], "Process")
    assert {name for row in processes for name in TICKED.findall(row[0]) if re.fullmatch(r"[a-z-]+", name)} == set(
        PROCFILE
    )


# --- The engine's public face ---


def test_issue21_engine_md_lists_exactly_the_names_of_games_engine_all():
    rows = table(section(DOCS["engine.md"], "The names"), "name")
    listed = [name for row in rows for name in TICKED.findall(row[0])]
    assert sorted(listed) == sorted(engine.__all__)
    assert len(listed) == len(set(listed))
    assert all(hasattr(engine, name) for name in engine.__all__)
    in_readme = [name for name in TICKED.findall(layout_row("games/engine/")) if name.isidentifier()]
    assert in_readme and set(in_readme) <= set(engine.__all__)


def imported_engine_names(path: Path, package: str | None = None) -> list[tuple[int, str]]:
    """What a module imports from the engine, as `games.engine.<module>` or `games.engine:<name>`."""
    package = package or ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("games.engine")]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            if module == "games":
                found += [(node.lineno, "games:engine") for alias in node.names if alias.name == "engine"]
            elif module == "games.engine":
                found += [(node.lineno, f"games.engine:{alias.name}") for alias in node.names]
            elif module.startswith("games.engine."):
                found.append((node.lineno, module))
    return found


def test_issue21_outside_the_engine_and_the_bots_the_site_imports_only_the_public_face():
    allowed = {"games:engine", *(f"games.engine:{name}" for name in engine.__all__)}
    offenders = []
    for app in ("games", "ratings", "tournaments", "reviews", "durak_site", "bench"):
        for path in sorted((ROOT / app).rglob("*.py")):
            if path.is_relative_to(ROOT / "games" / "engine") or path.is_relative_to(ROOT / "games" / "bots"):
                continue
            offenders += [
                f"{path.relative_to(ROOT)}:{line}: {name}"
                for line, name in imported_engine_names(path)
                if name not in allowed
            ]
    assert offenders == []


def test_issue21_the_import_reader_sees_every_way_of_reaching_the_engine(tmp_path):
    module = tmp_path / "page.py"
    module.write_text(
        "from games import engine\n"
        "from games.engine import Game\n"
        "from games.engine import cards\n"
        "import games.engine.rules\n"
        "from ..engine.deal import DEAL_METHOD\n"
        "from ..engine import layout\n"
    )
    assert [name for _, name in imported_engine_names(module, package="games.table")] == [
        "games:engine",
        "games.engine:Game",
        "games.engine:cards",
        "games.engine.rules",
        "games.engine.deal",
        "games.engine:layout",
    ]


def test_issue21_engine_md_gives_every_refusal_code_its_text():
    rows = table(section(DOCS["engine.md"], "Refusals"), "code")
    assert {TICKED.findall(code)[0]: text for code, text in rows} == engine.REFUSALS


# --- The deal: the verifier printed in fairness.md is the file, and the worked example is the engine's ---


def test_issue21_the_verifier_in_fairness_md_is_docs_fairness_verify_py():
    printed = re.search(r"```python\n(.*?)```", section(DOCS["fairness.md"], "The reference verifier"), re.DOTALL)
    assert printed.group(1) == (ROOT / "docs" / "fairness_verify.py").read_text(encoding="utf-8")


def test_issue21_the_worked_example_of_fairness_md_is_what_the_engine_deals():
    example = " ".join(section(DOCS["fairness.md"], "A worked example").split())
    game = engine.Game.new(engine.Rules(players=2, deck=36), seed="durak", dealer=0)
    state = json.loads(game.to_json())
    assert f"seat 1 (left of the dealer) gets `{' '.join(game.hand(1))}`" in example
    assert f"seat 0 gets `{' '.join(game.hand(0))}`" in example
    assert f"the face-up card is `{state['trump_card']}` (trump spades)" in example and game.trump == "S"
    assert f"top first, is `{' '.join(state['stock'])}`" in example


# --- Queues: every periodic task runs on the queue docs/scaling.md gives it ---


@pytest.mark.django_db
def test_issue21_every_periodic_task_runs_on_the_queue_scaling_md_names_for_it():
    from django_celery_beat.models import PeriodicTask

    from durak_site.celery import app

    queues = table(section(DOCS["scaling.md"], "Queues"), "Queue")
    named = {}
    for queue_cell, tasks_cell, *_ in queues:
        for task in TICKED.findall(tasks_cell):
            if re.fullmatch(r"\w+\.tasks\.\w+", task):
                named[task] = TICKED.findall(queue_cell)
    app.loader.import_default_modules()
    assert sorted(set(named) - set(app.tasks)) == []
    rows = list(PeriodicTask.objects.exclude(task__startswith="celery."))
    assert len(rows) >= 6
    for row in rows:
        variant = json.loads(row.args)[0] if row.args and row.args != "[]" else ""
        documented = [queue.replace("<variant>", variant) for queue in named[row.task]]
        assert row.queue in documented, (row.name, row.queue, documented)


# --- The import contracts as README tells them ---


def test_issue21_readme_tells_the_import_contracts_of_pyproject():
    contracts = {
        c["id"]: c for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    }
    told = " ".join(
        section(README, "Layout").split("`python3 dev.py check` runs what CI runs")[1].split("\n\n")[0].split()
    )
    apps = [app for layer in contracts["apps-layers"]["layers"] for app in layer.split(" | ")]
    assert [app for app in re.findall(r"`(\w+)`", told.split("the apps in layers")[1]) if app in apps][
        : len(apps)
    ] == apps
    pages = {"table", "lobby", "records", "accounts"}
    protected = contracts["apps-through-games-public-face"]["protected_modules"]
    for module in protected:
        name = module.removeprefix("games.")
        word = "pages" if name in pages else "template tags" if name == "templatetags" else name
        assert f" {word}" in told.split("never import")[1].split(":")[0], module
    importers = set(contracts["apps-through-games-public-face"]["allowed_importers"])
    assert {"ratings", "tournaments", "reviews", "notices"} & importers == set()
    assert contracts["engine-and-bots-without-django"]["forbidden_modules"] == ["django"]
    assert set(contracts["tools-out-of-the-product"]["forbidden_modules"]) == {"bench"}
