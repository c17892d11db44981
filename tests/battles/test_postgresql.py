"""Two entries at once on PostgreSQL: one player entering for two clubs of one battle at the same
moment gets one entry and a refusal, never two (the battle's row is locked while an entry is
written). In a subprocess, since Django reads its settings once per process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
INNER = "DURAK_BATTLE_LOCK_INNER"


def test_two_entries_at_once_for_two_clubs_make_one_entry_on_postgresql(postgres_url):
    pg = urlsplit(postgres_url)
    database_url = urlunsplit((pg.scheme, pg.netloc, f"/durak_battle_lock_{os.getpid()}", "", ""))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "PYTEST_ADDOPTS", "CELERY_EMBEDDED", "PYTEST_CURRENT_TEST"}
    }
    env.update({"DATABASE_URL": database_url, INNER: "1"})
    test = f"{Path(__file__).relative_to(ROOT)}::test_inner_one_entry_wins"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider", "-o", "addopts="],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert re.search(r"\b1 passed\b", output), output


if os.environ.get(INNER) == "1":  # collected only in the subprocess above, on PostgreSQL

    @pytest.mark.django_db(transaction=True)
    def test_inner_one_entry_wins():
        from battles import services
        from battles.errors import BattleRefused
        from battles.models import BattlePlayer
        from clubs.models import Membership
        from tests.battles.helpers import club_with, make_battle, user
        from tournaments.models import Entrant

        assert connection.vendor == "postgresql"
        a, a_owner, _ = club_with("alpha", 0)
        b, b_owner, _ = club_with("beta", 0)
        battle = make_battle(a, a_owner, [b])
        services.do_answer_invitation(b_owner, battle_id=battle.pk, club_id=b.pk, accept=True)
        both = user("both")
        Membership.objects.create(club=a, user=both)
        Membership.objects.create(club=b, user=both)
        locked, go_on = threading.Event(), threading.Event()
        outcomes = {}

        def hold_the_lock(execute, sql, params, many, context):
            result = execute(sql, params, many, context)
            if not locked.is_set() and 'FROM "battles_battle"' in sql and "FOR UPDATE" in sql:
                locked.set()
                go_on.wait(30)
            return result

        def enter(club, wrapper=None):
            try:
                if wrapper:
                    with connection.execute_wrapper(wrapper):
                        services.do_enter(both, battle_id=battle.pk, club_id=club.pk)
                else:
                    services.do_enter(both, battle_id=battle.pk, club_id=club.pk)
                outcomes[club.slug] = "entered"
            except BattleRefused as refusal:
                outcomes[club.slug] = str(refusal)
            finally:
                connection.close()

        first = threading.Thread(target=enter, args=(a, hold_the_lock))
        first.start()
        assert locked.wait(30), "the first entry never locked the battle"
        second = threading.Thread(target=enter, args=(b,))
        second.start()
        second.join(1)
        assert second.is_alive(), "the second entry must wait for the battle's row"
        go_on.set()
        first.join(30)
        second.join(30)
        assert outcomes == {"alpha": "entered", "beta": "both уже играет в этой битве за «Клуб alpha»."}
        assert list(BattlePlayer.objects.values_list("club__slug", flat=True)) == ["alpha"]
        assert Entrant.objects.count() == 1
