"""A task run eagerly (`.apply()`, as tests and the embedded fallbacks do) runs in the
caller's thread on the caller's connection, maybe inside the caller's transaction: the
worker's connection hand-back around each task must leave that connection alone. (Found
on PostgreSQL, where handing it back to psycopg's pool rolled the caller's transaction
back: "Cannot open a new connection in an atomic block" in ratings and reviews tests.)"""

from __future__ import annotations

import django.db
from celery import shared_task

from durak_site import celery as site_celery


@shared_task(name="tests.ops.echo_connection_use")
def echo_connection_use() -> str:
    return "done"


def test_an_eager_task_does_not_hand_the_callers_connection_back(monkeypatch):
    closed = []
    monkeypatch.setattr(django.db, "close_old_connections", lambda: closed.append(True))
    assert echo_connection_use.apply().get() == "done"
    assert closed == []


def test_a_worker_task_still_hands_its_connection_back(monkeypatch):
    closed = []
    monkeypatch.setattr(django.db, "close_old_connections", lambda: closed.append(True))

    class Request:
        is_eager = False

    class WorkerTask:
        request = Request()

    site_celery._reuse_healthy_db_connections(task=WorkerTask())
    assert closed == [True]
