"""Django settings for the Durak site.

Every setting comes from an environment variable; the embedded defaults run
on a bare machine (SQLite, in-memory channel layer, in-memory Celery broker).
"""

import os
import sys
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEV_SECRET_KEY = "django-insecure-dev-only-key-do-not-use-in-production"

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY") or DEV_SECRET_KEY
if not DEBUG and SECRET_KEY == DEV_SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "django_celery_beat",
    "games",
    "ratings",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "durak_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "durak_site.asgi.application"

# Database: SQLite in WAL mode by default, PostgreSQL when DATABASE_URL is set.
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL,
            conn_max_age=None,
            conn_health_checks=True,
        )
    }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH") or BASE_DIR / "db.sqlite3",  # SQLITE_PATH: e.g. bench_tables
            "CONN_MAX_AGE": None,
            "OPTIONS": {
                "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
        }
    }
    if env_str("DURAK_TEST_SQLITE_FILE"):
        # Tests with truly concurrent writers (tests/scaleout) need a file, not
        # the shared-cache in-memory test database: they run in a subprocess with this set.
        DATABASES["default"]["TEST"] = {"NAME": env_str("DURAK_TEST_SQLITE_FILE")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Accounts: Django auth views under the games namespace.
LOGIN_URL = "games:login"
LOGIN_REDIRECT_URL = "games:home"
LOGOUT_REDIRECT_URL = "games:home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Internationalisation: Russian by default, English available.
LANGUAGE_CODE = "ru"
LANGUAGES = [
    ("ru", _("Russian")),
    ("en", _("English")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = env_str("TIME_ZONE") or "Europe/Moscow"
USE_TZ = True

# Static files are served by WhiteNoise, from STATIC_ROOT after collectstatic
# and straight from the app/static folders through the finders.
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# Channels: Redis when REDIS_URL is set, in-process memory otherwise.
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Celery: Redis broker when REDIS_URL is set, in-memory transport otherwise.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TRACK_STARTED = True
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = TIME_ZONE
CELERY_ENABLE_UTC = True
# The queues a worker consumes (Procfile, durak_site/embedded.py): one per Durak
# variant (games.tasks.advance_game goes to the game's variant, see
# games.services.notify.nudge_game) plus "default" for the beat sweep.
WORKER_QUEUES = ("default", "podkidnoy", "perevodnoy")
# Keep the workers' persistent DB connections (durak_site/celery.py drops broken ones).
CELERY_DB_REUSE_MAX = 500
CELERY_TASK_ROUTES = {"games.tasks.sweep_due_games": {"queue": "default"}}
# Beat: every second, find games whose turn timer ran out or whose bot is due
# (covers lost nudges). The schedule needs no file: nothing in it is worth keeping.
CELERY_BEAT_SCHEDULER = "celery.beat:Scheduler"
CELERY_BEAT_SCHEDULE = {
    "sweep-due-games": {
        "task": "games.tasks.sweep_due_games",
        "schedule": 1.0,
        "options": {"queue": "default", "expires": 10},
    },
}
if not REDIS_URL:
    # The in-memory transport is polled: poll often so a bot's nudge is not late.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"polling_interval": 0.1}
# A bot's human-like pause before it moves: "min,max" seconds (games.services.play).
BOT_PAUSE_SECONDS = tuple(float(x) for x in (env_list("BOT_PAUSE_SECONDS", ["0.7", "1.6"]) * 2)[:2])
# Without REDIS_URL the site process runs a Celery worker and beat in threads
# (durak_site/embedded.py, started from asgi.py) with the memory:// broker:
# one command, no outside services. Never inside pytest, unless a test starts
# it itself; CELERY_EMBEDDED=true/false overrides.
CELERY_EMBEDDED = env_bool("CELERY_EMBEDDED", not REDIS_URL and "pytest" not in sys.modules)

LOG_LEVEL = (env_str("LOG_LEVEL") or "INFO").upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "console": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "console"},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        # No handler of its own: `celery worker` replaces the root logger's handlers
        # and empties the "celery" logger's, so its lines must propagate to the root.
        "celery": {"level": LOG_LEVEL, "propagate": True},
    },
}
