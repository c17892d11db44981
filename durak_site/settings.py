"""Django settings for the Durak site.

Every setting comes from an environment variable; the embedded defaults run
on a bare machine (SQLite, in-memory channel layer, in-memory Celery broker).
They fail closed: DEBUG is off unless set, and then the site needs a real
SECRET_KEY and speaks HTTPS only (README, "Configuration"). `python3 dev.py
serve` sets DEBUG=true for local play. Tests bring their own settings module
(tests/ops/settings.py); nothing here knows about them.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

# The engine is pure Python, safe to import before Django is set up; a lowercase name is no setting.
from games import engine

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {value!r}.") from None


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEV_SECRET_KEY = "django-insecure-dev-only-key-do-not-use-in-production"
MIN_SECRET_KEY_LENGTH = 50

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY") or (DEV_SECRET_KEY if DEBUG else "")
if not DEBUG:
    # The same bar as `manage.py check --deploy` (security.W009), but refusing to start.
    if not SECRET_KEY or SECRET_KEY == DEV_SECRET_KEY or SECRET_KEY.startswith("django-insecure-"):
        problem = "is not set" if not SECRET_KEY else "is the development key"
    elif len(SECRET_KEY) < MIN_SECRET_KEY_LENGTH or len(set(SECRET_KEY)) < 5:
        problem = f"is shorter than {MIN_SECRET_KEY_LENGTH} characters or too repetitive"
    else:
        problem = ""
    if problem:
        raise ImproperlyConfigured(
            f"SECRET_KEY {problem}. With DEBUG off (the default) the site needs a secret key of at least "
            f"{MIN_SECRET_KEY_LENGTH} random characters, for example from "
            '`python3 -c "import secrets; print(secrets.token_urlsafe(50))"`. '
            "For local play and management commands set DEBUG=true instead (python3 dev.py serve does)."
        )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# HTTPS: on by default in production (DEBUG off), off for local play; each can be
# overridden. Behind a proxy that terminates TLS, set SECURE_PROXY_SSL_HEADER to the
# header it sets (X-Forwarded-Proto): only when the proxy always overwrites that header.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
_proxy_ssl_header = env_str("SECURE_PROXY_SSL_HEADER")
if _proxy_ssl_header:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_ssl_header.upper().replace("-", "_"), "https")
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): scripts, styles, images, fonts and connections
# (the websockets too) from the site itself only; no inline script or style, no eval
# (templates/base.html tells htmx so), no plugins, no framing, forms post here only.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

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
    "template_partials",
    "django_celery_beat",
    "axes",
    "games",
    "ratings",
    "clubs",
    "tournaments",
    "battles",
    "reviews",
    "notices",
    "friends",
    "backups",
    "bench",  # management commands only: benchmarks, load test, rating study (no models, URLs or templates)
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
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Before any view or form reads the data: a NUL or a lone surrogate anywhere in the
    # request is the site's 400 page, an id no row can have its 404 (durak_site.input_checks).
    "durak_site.input_checks.RefuseUnstorableInput",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
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
    # psycopg's connection pool, not persistent connections (which Django advises
    # against under ASGI): every request or task returns its connection to the pool.
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DATABASE_POOL_MIN_SIZE", 2),
        "max_size": env_int("DATABASE_POOL_MAX_SIZE", 10),
        "timeout": 10,
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

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Accounts: Django auth views under the games namespace.
LOGIN_URL = "games:login"
LOGIN_REDIRECT_URL = "games:home"
LOGOUT_REDIRECT_URL = "games:home"

# Login throttling (django-axes) on the site's login and on /admin/: after
# AXES_FAILURE_LIMIT wrong passwords for one user name from one address, that
# pair is locked out for AXES_COOLOFF_TIME (the right password included), with
# django-axes' own translated message and status 429. An address that fails
# LOGIN_ADDRESS_FAILURE_LIMIT times on any names is locked out for every name
# (durak_site.login_throttling).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
LOGIN_ADDRESS_FAILURE_LIMIT = max(env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 30), AXES_FAILURE_LIMIT)
AXES_HANDLER = "durak_site.login_throttling.AddressAwareHandler"
AXES_USERNAME_CALLABLE = "durak_site.login_throttling.client_username"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "lockout.html"
# The address is REMOTE_ADDR: behind a proxy, run daphne with --proxy-headers so
# that it is the client's (README, "Production processes").

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

# Static files are served by WhiteNoise from STATIC_ROOT after collectstatic,
# with hashed names (cached forever) and compressed copies. With DEBUG on the
# pages link the plain names, which the finders serve without collectstatic.
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG

# Channels: Redis when REDIS_URL is set, in-process memory otherwise.
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # channels_redis blocks up to 5 s on a pop (RedisChannelLayer.brpop_timeout);
            # redis-py 8's default socket_timeout is also 5 s, so an idle socket's read
            # timed out and closed it with 1011 (channels_redis #422, redis-py #4091).
            # The read timeout must stay well above the pop's. (No retries on a dropped
            # connection: a restarted Redis has forgotten the groups, so a socket must
            # close and the browser reconnect, rather than stay open and hear nothing.)
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 30, "socket_connect_timeout": 5}],
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The cache holds the per-person rate counters (games.limits): with several server
# processes they must share one count, so Redis when REDIS_URL is set.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # While Redis restarts a call fails within seconds instead of hanging its thread.
            "OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


def env_rate(name: str, default: tuple[int, int]) -> tuple[int, int]:
    """A rate "COUNT/SECONDS", such as "10/600"."""
    value = env_str(name)
    if not value:
        return default
    try:
        count, seconds = (int(part) for part in value.split("/"))
    except ValueError:
        raise ImproperlyConfigured(f"{name} must look like COUNT/SECONDS, such as 10/600, not {value!r}.") from None
    if count < 0 or seconds <= 0:
        raise ImproperlyConfigured(f"{name}: the count must be 0 or more and the seconds more than 0.")
    return count, seconds


# Limits per person (games.limits).
MAX_WAITING_TABLES = int(env_str("MAX_WAITING_TABLES") or 3)
TABLE_CREATE_RATE = env_rate("TABLE_CREATE_RATE", (10, 600))
GUEST_CREATE_RATE = env_rate("GUEST_CREATE_RATE", (10, 3600))
SIGNUP_RATE = env_rate("SIGNUP_RATE", (5, 3600))
PAIR_INVITE_RATE = env_rate("PAIR_INVITE_RATE", (10, 3600))
MAIL_LINK_RATE = env_rate("MAIL_LINK_RATE", (5, 3600))
# Open websockets per signed-in user and per address (durak_site.sockets; 0: no cap).
SOCKETS_PER_USER = env_int("SOCKETS_PER_USER", 30)
SOCKETS_PER_ADDRESS = env_int("SOCKETS_PER_ADDRESS", 120)
SOCKET_LEASE_SECONDS = env_int("SOCKET_LEASE_SECONDS", 60)
# The lobby's sockets are refreshed together at most once per this many seconds (games.lobby.consumers).
LOBBY_REFRESH_SECONDS = float(env_str("LOBBY_REFRESH_SECONDS") or 1.0)

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
# The latency queues (Procfile's `worker`, durak_site/embedded.py): only short
# tasks of live play, one queue per Durak variant (bot moves and turn timers,
# games.services.notify.nudge_game; tournament steps) plus "default" for the
# sweeps. Long work goes to the batch queue, with a worker of its own (`batch`):
# reviews and rating recomputations. docs/scaling.md, "Queues".
WORKER_QUEUES = ("default", *engine.VARIANTS)
BATCH_QUEUE = "batch"
BATCH_QUEUES = (BATCH_QUEUE,)
# Celery's Django fix-up would close the database connection around every task;
# durak_site/celery.py hands it back like a request does instead (to the pool on
# PostgreSQL, kept open on SQLite), so the fix-up only recycles it now and then.
CELERY_DB_REUSE_MAX = 500
CELERY_TASK_ROUTES = {
    "games.tasks.sweep_due_games": {"queue": "default"},
    # The senders name these queues themselves; the routes cover a message sent without one.
    "reviews.tasks.run_review": {"queue": BATCH_QUEUE},
    "ratings.tasks.recompute": {"queue": BATCH_QUEUE},
    "backups.tasks.nightly_backup": {"queue": BATCH_QUEUE},
}
# Beat: django-celery-beat's database scheduler, also in the embedded mode. Each
# periodic task is a row that its app's data migration creates once (the one-second
# sweep of due games: games/migrations/0008) and the admin may edit: no
# CELERY_BEAT_SCHEDULE here, since beat would write its entries over the rows at
# every start.
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
if not REDIS_URL:
    # The in-memory transport is polled: poll often so a bot's nudge is not late.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"polling_interval": 0.1}
# Notices off the site (notices/): mail through Django's email framework, printed to the
# console unless EMAIL_BACKEND names another (SMTP: EMAIL_HOST and the rest); links in mail
# start with SITE_URL. Web Push only when all three VAPID_* are set.
EMAIL_BACKEND = env_str("EMAIL_BACKEND") or "django.core.mail.backends.console.EmailBackend"
EMAIL_HOST = env_str("EMAIL_HOST") or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)  # a mail server that hangs holds a batch worker this long at most
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL") or "durak@localhost"
SITE_URL = env_str("SITE_URL") or "http://localhost:8000"
VAPID_PUBLIC_KEY = env_str("VAPID_PUBLIC_KEY")
VAPID_PRIVATE_KEY = env_str("VAPID_PRIVATE_KEY")
VAPID_SUBJECT = env_str("VAPID_SUBJECT")
# The hosts a push subscription's endpoint may name (notices/push.py): the browsers' push
# services (Chrome's FCM, Firefox's autopush, Safari's and Edge's), "*." for any subdomain.
# An endpoint elsewhere, or one that resolves to a loopback, private, link-local or
# metadata address, is refused when stored and again when sent to.
PUSH_SERVICE_HOSTS = env_list(
    "PUSH_SERVICE_HOSTS",
    ["fcm.googleapis.com", "updates.push.services.mozilla.com", "*.push.apple.com", "*.notify.windows.com"],
)
# Backups (backups/): `manage.py backup` writes into BACKUP_DIR unless given a path; the
# nightly one (Celery beat, on the batch queue) keeps the last BACKUP_KEEP files there.
BACKUP_DIR = Path(env_str("BACKUP_DIR") or BASE_DIR / "db-backups")
BACKUP_KEEP = env_int("BACKUP_KEEP", 14)
# New reviews one person may ask for in any 24 hours (reviews.services; 0: none).
REVIEWS_PER_DAY = int(env_str("REVIEWS_PER_DAY") or 20)
# A bot's human-like pause before it moves: "min,max" seconds (games.services.play).
BOT_PAUSE_SECONDS = tuple(float(x) for x in (env_list("BOT_PAUSE_SECONDS", ["0.7", "1.6"]) * 2)[:2])
# Without REDIS_URL the site process runs a Celery worker and beat in threads
# (durak_site/embedded.py, started from asgi.py) with the memory:// broker:
# one command, no outside services. Never inside pytest, unless a test starts
# it itself; CELERY_EMBEDDED=true/false overrides.
CELERY_EMBEDDED = env_bool("CELERY_EMBEDDED", not REDIS_URL)

# The server's young-generation threshold for the garbage collector (Python's is 700):
# fewer collections that stop the event loop; 0 keeps Python's. asgi.py also freezes the
# start-up heap (durak_site/collector.py; docs/benchmarks.md, "The tail of the load test").
GC_GEN0_THRESHOLD = env_int("GC_GEN0_THRESHOLD", 10_000)

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
