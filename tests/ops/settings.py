"""The test suite's settings: the site's own, plus what tests need.

pyproject.toml points pytest-django here (DJANGO_SETTINGS_MODULE), so the
site's settings hold no test logic. Processes that tests start (Celery workers,
inner pytest runs) inherit this module through the environment; the browser
tests' daphne uses the site's settings with DEBUG=true, as `dev.py serve` does.
"""

import os
import secrets
from urllib.parse import urlsplit, urlunsplit

# Tests run with DEBUG off (as Django's test runner does), and the site refuses to
# start then without a real key: a throwaway one, inherited by child processes so
# that sessions made here are valid there.
os.environ.setdefault("SECRET_KEY", "test-only-" + secrets.token_urlsafe(48))

_REDIS_WORKER_MARK = "DURAK_TEST_REDIS_WORKER"


def redis_url_for_worker(url: str, worker: str) -> str:
    """The same Redis server, database 1 + N for pytest-xdist worker gwN (0 stays the
    one-process run's): parallel workers never share a cache, a channel layer or a queue."""
    parts = urlsplit(url)
    number = 1 + int(worker.removeprefix("gw")) % 15
    return urlunsplit((parts.scheme, parts.netloc, f"/{number}", parts.query, parts.fragment))


# The site's settings read REDIS_URL from the environment, so a worker rewrites it there:
# the processes it starts inherit its database. The mark keeps those processes (which
# inherit PYTEST_XDIST_WORKER too) on the Redis URL a test handed them.
if os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get(_REDIS_WORKER_MARK):
    os.environ[_REDIS_WORKER_MARK] = os.environ["PYTEST_XDIST_WORKER"]
    if os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = redis_url_for_worker(os.environ["REDIS_URL"], os.environ["PYTEST_XDIST_WORKER"])

from durak_site.settings import *  # noqa: E402, F403
from durak_site.settings import env_bool  # noqa: E402

# Passwords in tests need no slow hashing (the processes tests start inherit this too).
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# The test client and WebsocketCommunicator speak plain HTTP.
SECURE_SSL_REDIRECT = False
SECURE_HSTS_SECONDS = 0
# Pages render without collectstatic; tests/ops/test_deploy.py collects once with
# the production storage (hashed, compressed names) and checks it.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
# Never a worker and beat inside the test process unless a test starts them.
CELERY_EMBEDDED = env_bool("CELERY_EMBEDDED", False)
