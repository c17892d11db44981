"""Fixtures of the notices tests: mail settings, and the notice tasks caught or run on the spot."""

from __future__ import annotations

import pytest

from notices import tasks as notice_tasks


@pytest.fixture(autouse=True)
def site_language():
    """Each test starts in the site's default language (Russian)."""
    from django.conf import settings
    from django.utils import translation

    with translation.override(settings.LANGUAGE_CODE):
        yield


@pytest.fixture(autouse=True)
def mail_settings(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://club.example"
    settings.DEFAULT_FROM_EMAIL = "club@club.example"
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = settings.VAPID_SUBJECT = ""
    return settings


@pytest.fixture
def enqueued(monkeypatch):
    """What the receivers hand to Celery: [(args, queue)], nothing run."""
    calls = []
    monkeypatch.setattr(notice_tasks.send_notice, "apply_async", lambda args, queue: calls.append((args, queue)))
    return calls


@pytest.fixture
def run_at_once(monkeypatch):
    """The notice tasks run where they are enqueued, as a worker would run them (its retries at once)."""
    results = []

    def run(args, queue):
        results.append(notice_tasks.send_notice.apply(args=args))

    monkeypatch.setattr(notice_tasks.send_notice, "apply_async", run)
    return results
