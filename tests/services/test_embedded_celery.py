"""`python3 dev.py serve` runs Celery's worker and beat inside the site process.

The test starts them in a subprocess (file SQLite test database, see
tests/scaleout/inner/conftest.py; in-memory broker):
tests/scaleout/inner/test_embedded.py. The settings side is checked here.
"""

from django.conf import settings

from durak_site.celery import app
from tests.scaleout.runner import run_inner


def test_settings_for_the_embedded_mode():
    assert settings.CELERY_EMBEDDED is False  # never inside pytest unless a test starts it
    assert set(settings.WORKER_QUEUES) == {"default", "podkidnoy", "perevodnoy"}
    # The beat's rows (the one-second sweep among them): tests/ops/test_periodic_tasks.py.
    assert settings.CELERY_BEAT_SCHEDULER == "django_celery_beat.schedulers:DatabaseScheduler"
    if not settings.REDIS_URL:
        assert app.conf.broker_url.startswith("memory://")


def test_embedded_worker_and_beat_move_bots():
    counts = run_inner({}, "test_embedded.py")
    assert counts.get("passed", 0) == 1, counts
