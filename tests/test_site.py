"""Smoke tests for the site skeleton: pages, i18n, static files, checks."""

from __future__ import annotations

import ast
import gettext
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

ROOT = Path(__file__).resolve().parent.parent

HTMX_JS = "/static/django_htmx/htmx-2.min.js"
HTMX_WS_JS = "/static/django_htmx/ext/hx-ws-2.min.js"
SITE_CSS = "/static/css/site.css"


def html(response) -> str:
    return response.content.decode(response.charset or "utf-8")


@pytest.mark.django_db  # the home page is the lobby: it lists tables
def test_home_page_is_russian_by_default(client):
    response = client.get("/")
    assert response.status_code == 200
    page = html(response)
    assert '<html lang="ru">' in page
    assert "<title>Дурак</title>" in page
    assert "Добро пожаловать" in page
    assert "Welcome to Durak" not in page


@pytest.mark.django_db  # the home page is the lobby: it lists tables
def test_home_page_follows_accept_language(client):
    page = html(client.get("/", headers={"accept-language": "en"}))
    assert '<html lang="en">' in page
    assert "<title>Durak</title>" in page


@pytest.mark.django_db  # the home page is the lobby: it lists tables
def test_switching_language_to_english(client):
    response = client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"

    page = html(client.get("/"))
    assert '<html lang="en">' in page
    assert "<title>Durak</title>" in page
    assert "Welcome to Durak" in page
    assert "Дурак" not in page

    client.post(reverse("set_language"), {"language": "ru", "next": "/"})
    assert "<title>Дурак</title>" in html(client.get("/"))


@pytest.mark.django_db  # the home page is the lobby: it lists tables
def test_language_switcher_is_on_the_page(client):
    page = html(client.get("/"))
    assert f'action="{reverse("set_language")}"' in page
    assert 'name="language" value="ru"' in page
    assert 'name="language" value="en"' in page


@pytest.mark.django_db  # the home page is the lobby: it lists tables
def test_htmx_is_served_locally(client):
    page = html(client.get("/"))
    scripts = re.findall(r'<script[^>]*\bsrc="([^"]*)"', page)
    styles = re.findall(r'<link(?![^>]*rel="manifest")[^>]*\bhref="([^"]*)"', page)
    # The web app manifest is the site's own view (issue 17), not a static file: still local.
    assert re.findall(r'<link rel="manifest" href="([^"]*)"', page) == [reverse("manifest")]
    assert HTMX_JS in scripts
    assert HTMX_WS_JS in scripts
    assert SITE_CSS in styles
    for url in scripts + styles:
        assert url.startswith(settings.STATIC_URL), f"{url} is not served locally"
    for cdn in ("unpkg", "jsdelivr", "cdnjs", "googleapis"):
        assert cdn not in page

    for url, needle in ((HTMX_JS, b"htmx"), (HTMX_WS_JS, b"ws"), (SITE_CSS, b"--felt")):
        response = client.get(url)
        assert response.status_code == 200, url
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert needle in body, url


def test_manage_py_check_passes():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--fail-level", "WARNING"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.django_db
def test_migrations_are_complete():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def read_po(path: Path) -> dict[str, str]:
    """Singular, non-fuzzy entries of a .po file (header excluded): msgid -> msgstr."""
    entries: dict[str, str] = {}
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        if "#, fuzzy" in block or "msgid_plural" in block:
            continue
        fields: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            match = re.match(r'^(msgctxt|msgid|msgstr) (".*")$', line)
            if match:
                key = match.group(1)
                fields[key] = ast.literal_eval(match.group(2))
            elif line.startswith('"') and key:
                fields[key] += ast.literal_eval(line)
        if fields.get("msgid"):
            msgid = fields["msgid"]
            if "msgctxt" in fields:
                msgid = f"{fields['msgctxt']}\x04{msgid}"
            entries[msgid] = fields.get("msgstr", "")
    return entries


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_compiled_translations_match_sources(lang):
    po = ROOT / "locale" / lang / "LC_MESSAGES" / "django.po"
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: run manage.py compilemessages"
    with mo.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    for msgid, msgstr in read_po(po).items():
        assert compiled.gettext(msgid) == (msgstr or msgid), (
            f"{mo} is stale for {msgid!r}: run manage.py compilemessages"
        )


def test_russian_catalog_is_complete():
    entries = read_po(ROOT / "locale" / "ru" / "LC_MESSAGES" / "django.po")
    assert entries
    missing = [msgid for msgid, msgstr in entries.items() if not msgstr]
    assert not missing, f"untranslated in locale/ru: {missing}"


SETTINGS_PROBE = """
import json, django
django.setup()
from django.conf import settings
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"],
    "name": str(db["NAME"]),
    "conn_max_age": db.get("CONN_MAX_AGE"),
    "options": {k: str(v) for k, v in db.get("OPTIONS", {}).items()},
    "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"],
    "broker": settings.CELERY_BROKER_URL,
    "debug": settings.DEBUG,
    "allowed_hosts": settings.ALLOWED_HOSTS,
}))
"""

ENV_VARS = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS")


def probe_settings(**env_overrides: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    env["DJANGO_SETTINGS_MODULE"] = "durak_site.settings"
    env.update(env_overrides)
    result = subprocess.run(
        [sys.executable, "-c", SETTINGS_PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_default_settings_run_on_a_bare_machine():
    probed = probe_settings(DEBUG="true")
    assert probed["engine"] == "django.db.backends.sqlite3"
    assert probed["name"] == str(ROOT / "db.sqlite3")
    assert probed["conn_max_age"] is None
    assert "PRAGMA journal_mode=WAL" in probed["options"]["init_command"]
    assert probed["options"]["transaction_mode"] == "IMMEDIATE"
    assert probed["channel_layer"] == "channels.layers.InMemoryChannelLayer"
    assert probed["broker"] == "memory://"
    assert probed["debug"] is True


def test_debug_is_off_unless_set():
    probed = probe_settings(SECRET_KEY="a-production-key-" + "0123456789abcdef" * 3)
    assert probed["debug"] is False


def test_environment_switches_to_postgres_and_redis():
    probed = probe_settings(
        DATABASE_URL="postgres://durak:secret@db.example:5432/durak",
        REDIS_URL="redis://cache.example:6379/1",
        DEBUG="false",
        SECRET_KEY="a-production-key-" + "0123456789abcdef" * 3,
        ALLOWED_HOSTS="durak.example, www.durak.example",
    )
    assert probed["engine"] == "django.db.backends.postgresql"
    assert probed["name"] == "durak"
    # psycopg's pool instead of persistent connections (which need CONN_MAX_AGE > 0).
    assert probed["conn_max_age"] == 0
    assert "'min_size'" in probed["options"]["pool"]
    assert probed["channel_layer"] == "channels_redis.core.RedisChannelLayer"
    assert probed["broker"] == "redis://cache.example:6379/1"
    assert probed["debug"] is False
    assert probed["allowed_hosts"] == ["durak.example", "www.durak.example"]


@pytest.mark.parametrize(
    ("secret_key", "problem"),
    [
        ("", "SECRET_KEY is not set"),
        ("django-insecure-dev-only-key-do-not-use-in-production", "SECRET_KEY is the development key"),
        ("short-but-random-Zq8", "SECRET_KEY is shorter than 50 characters"),
        ("a" * 60, "too repetitive"),
    ],
)
@pytest.mark.parametrize("debug", ["", "false"])
def test_production_refuses_a_weak_secret_key(secret_key, problem, debug):
    with pytest.raises(AssertionError, match=problem):
        probe_settings(DEBUG=debug, SECRET_KEY=secret_key)


def test_sqlite_connections_use_wal(tmp_path, django_db_blocker):
    """The embedded default (no DATABASE_URL), whatever database this run uses."""
    from django.db.backends.sqlite3.base import DatabaseWrapper

    probed = probe_settings(DEBUG="true")
    default = {
        **settings.DATABASES["default"],
        "ENGINE": probed["engine"],
        "OPTIONS": {key: probed["options"][key] for key in ("init_command", "transaction_mode")},
        "CONN_MAX_AGE": probed["conn_max_age"],
        "NAME": str(tmp_path / "wal.sqlite3"),
    }
    wrapper = DatabaseWrapper(default, alias="wal")
    with django_db_blocker.unblock():
        try:
            with wrapper.cursor() as cursor:
                cursor.execute("PRAGMA journal_mode")
                assert cursor.fetchone()[0] == "wal"
                cursor.execute("PRAGMA synchronous")
                assert cursor.fetchone()[0] == 1  # NORMAL
        finally:
            wrapper.close()
