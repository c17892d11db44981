import pytest


@pytest.fixture(autouse=True)
def small_review_budget(settings):
    """A few deals per decision: the tests check the bookkeeping, not the strength."""
    settings.REVIEW_DEALS = 12
    settings.REVIEW_PLAYOUTS = 60
    settings.REVIEW_CHUNK_SECONDS = 3600  # one part per run, unless a test says otherwise


@pytest.fixture
def sent_tasks(monkeypatch):
    """The Celery messages the services send, as (name, args, queue)."""
    from celery import current_app

    sent = []
    monkeypatch.setattr(
        current_app, "send_task", lambda name, args=None, queue=None, **kw: sent.append((name, args, queue))
    )
    return sent
