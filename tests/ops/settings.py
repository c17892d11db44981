"""The test suite's settings: the site's own, plus what tests need.

pyproject.toml points pytest-django here (DJANGO_SETTINGS_MODULE), so the
site's settings hold no test logic. Processes that tests start (Celery workers,
inner pytest runs) inherit this module through the environment; the browser
tests' daphne uses the site's settings with DEBUG=true, as `dev.py serve` does.
"""

import os
import secrets

# Tests run with DEBUG off (as Django's test runner does), and the site refuses to
# start then without a real key: a throwaway one, inherited by child processes so
# that sessions made here are valid there.
os.environ.setdefault("SECRET_KEY", "test-only-" + secrets.token_urlsafe(48))

from durak_site.settings import *  # noqa: F403
from durak_site.settings import env_bool

# The test client and WebsocketCommunicator speak plain HTTP.
SECURE_SSL_REDIRECT = False
SECURE_HSTS_SECONDS = 0
# Pages render without collectstatic; tests/ops/test_static.py collects once with
# the production storage (hashed, compressed names) and checks it.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
# Never a worker and beat inside the test process unless a test starts them.
CELERY_EMBEDDED = env_bool("CELERY_EMBEDDED", False)
