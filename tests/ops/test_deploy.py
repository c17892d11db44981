"""Issue 7, item 11 and issue 6, item 7: production settings fail closed.

Each check runs `manage.py` in a subprocess with the site's own settings
(durak_site.settings) and a production environment: DEBUG unset.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SITE_ENV_VARS = {
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "REDIS_URL",
    "SECURE_SSL_REDIRECT",
    "SECURE_COOKIES",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_PROXY_SSL_HEADER",
    "CELERY_EMBEDDED",
}


def production_env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SITE_ENV_VARS}
    env.update(
        DJANGO_SETTINGS_MODULE="durak_site.settings",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="durak.example",
        LOG_LEVEL="WARNING",
    )
    env.update(overrides)
    return env


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_prints_no_warning_in_production():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


PROBE = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps({name: getattr(s, name, None) for name in (
    "DEBUG", "SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SECURE_PROXY_SSL_HEADER")}))
"""


def probe(env: dict[str, str]) -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_https_is_the_production_default():
    settings = probe(production_env())
    assert settings["DEBUG"] is False
    assert settings["SECURE_SSL_REDIRECT"] is True
    assert settings["SESSION_COOKIE_SECURE"] is True and settings["CSRF_COOKIE_SECURE"] is True
    assert settings["SECURE_HSTS_SECONDS"] >= 365 * 24 * 3600
    assert settings["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True and settings["SECURE_HSTS_PRELOAD"] is True
    # Trusting a forwarded header is only safe behind a proxy that sets it: never by default.
    assert settings["SECURE_PROXY_SSL_HEADER"] is None


def test_https_settings_come_from_the_environment():
    settings = probe(
        production_env(
            SECURE_SSL_REDIRECT="false",
            SECURE_COOKIES="false",
            SECURE_HSTS_SECONDS="60",
            SECURE_HSTS_PRELOAD="false",
            SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
        )
    )
    assert settings["SECURE_SSL_REDIRECT"] is False
    assert settings["SESSION_COOKIE_SECURE"] is False and settings["CSRF_COOKIE_SECURE"] is False
    assert settings["SECURE_HSTS_SECONDS"] == 60
    assert settings["SECURE_HSTS_PRELOAD"] is False
    assert settings["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


def test_local_play_is_plain_http():
    settings = probe(production_env(DEBUG="true", SECRET_KEY=""))
    assert settings["DEBUG"] is True
    assert settings["SECURE_SSL_REDIRECT"] is False
    assert settings["SESSION_COOKIE_SECURE"] is False
    assert settings["SECURE_HSTS_SECONDS"] == 0


def test_collectstatic_gives_hashed_compressed_files(tmp_path):
    """The production storage (WhiteNoise's CompressedManifestStaticFilesStorage), collected
    into a scratch STATIC_ROOT; the tests' own settings use the plain storage instead."""
    script = (
        "import django, sys\n"
        "from django.conf import settings\n"
        f"settings.STATIC_ROOT = {str(tmp_path)!r}\n"
        "django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('collectstatic', interactive=False, verbosity=0)\n"
        "from django.templatetags.static import static\n"
        "print(static('css/site.css'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=production_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    url = result.stdout.strip().splitlines()[-1]
    assert url.startswith("/static/css/site.") and url.endswith(".css") and url != "/static/css/site.css"
    hashed = tmp_path / url.removeprefix("/static/")
    assert hashed.exists()
    assert hashed.with_name(hashed.name + ".gz").exists()
    manifest = json.loads((tmp_path / "staticfiles.json").read_text())
    assert manifest["paths"]["css/site.css"] == url.removeprefix("/static/")
