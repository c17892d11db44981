"""Inner test (run by tests/experience/test_concurrent_play_now.py in a subprocess on PostgreSQL):
two people press "play now" at the same moment and land at one table.

Each join runs in its own thread and transaction; matching locks the waiting rows of
the kind with select_for_update, so however the two interleave, exactly one table is
opened for the pair (at the latest when one of them asks again, as the waiting page does).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from games.models import QueueEntry, Table
from games.services import matchmaking
from tests.support.games import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_presses_at_once_make_one_table():
    assert connections["default"].vendor == "postgresql", "the outer test runs this on PostgreSQL"
    users = [make_user(f"racer{i}") for i in range(6)]
    barrier = threading.Barrier(len(users))
    errors = []

    def press(user):
        try:
            barrier.wait()
            matchmaking.do_join_queue(user=user, variant="podkidnoy", players=2)
        except Exception as error:  # collected for the assertion below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=press, args=(u,)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for user in users:  # the waiting pages ask once more
        matchmaking.do_poll_queue(user=user)
    entries = list(QueueEntry.objects.all())
    assert all(e.status == QueueEntry.Status.MATCHED for e in entries), [
        (e.user_id, e.status, e.table_id, e.created_at, e.seen_at) for e in entries
    ]
    assert Table.objects.count() == 3
    for table in Table.objects.all():
        assert table.seats.filter(user__isnull=False).count() == 2
