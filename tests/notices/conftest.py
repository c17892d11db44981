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


# Where the tests' names resolve: the push services at public addresses, nothing through real DNS.
PUBLIC_ADDRESS = "142.250.74.42"


@pytest.fixture(autouse=True)
def push_dns(monkeypatch):
    """A table of names in place of DNS: `push_dns[host] = [addresses]`; a name not in it does not resolve."""
    from notices import push

    table = {
        "fcm.googleapis.com": [PUBLIC_ADDRESS],
        "updates.push.services.mozilla.com": ["2620:149:a44::1"],
        "web.push.apple.com": ["17.253.144.10"],
        "wns2-par02p.notify.windows.com": ["20.42.65.92"],
    }

    def resolve(host):
        if host not in table:
            raise OSError(f"{host} does not resolve")
        return table[host]

    monkeypatch.setattr(push, "resolver", resolve)
    return table
