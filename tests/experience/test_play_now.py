"""Finding a game (issue 10, item 1): the "play now" queue.

People who want the same kind of game (variant, table size, partners, rated) are
seated together at a new table, dealt at once, with a turn timer (T7). The database
is the truth: matching is idempotent and runs on every join and every ask of the
waiting page; after a wait the page offers bots (an unrated game).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from games.models import Game, QueueEntry, Table, TableSeat
from games.services import matchmaking
from tests.support.games import make_user

pytestmark = pytest.mark.django_db


def guest(name):
    user = make_user(name)
    user.profile.is_guest = True  # the profile comes with the user
    user.profile.save()
    return user


def test_two_people_who_want_the_same_game_sit_at_one_table():
    alice, bob = make_user("alice"), make_user("bob")
    first = matchmaking.do_join_queue(user=alice, variant="podkidnoy", players=2)
    assert first.status == QueueEntry.Status.WAITING and first.table is None
    second = matchmaking.do_join_queue(user=bob, variant="podkidnoy", players=2)
    assert second.status == QueueEntry.Status.MATCHED
    first.refresh_from_db()
    assert first.table_id == second.table_id
    table = Table.objects.get(pk=second.table_id)
    assert table.status == Table.Status.PLAYING and table.turn_seconds == matchmaking.TURN_SECONDS
    assert set(TableSeat.objects.filter(table=table).values_list("user__username", flat=True)) == {"alice", "bob"}
    assert Game.objects.filter(table=table).count() == 1


def test_different_wishes_are_not_mixed():
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    matchmaking.do_join_queue(user=alice, variant="podkidnoy", players=2)
    assert matchmaking.do_join_queue(user=bob, variant="perevodnoy", players=2).status == "waiting"
    assert matchmaking.do_join_queue(user=carol, variant="podkidnoy", players=3).status == "waiting"
    assert not Table.objects.exists()


def test_R_partners_four_players_two_against_two():
    users = [make_user(f"p{i}") for i in range(4)]
    entries = [matchmaking.do_join_queue(user=u, variant="podkidnoy", players=4, partners=True) for u in users]
    assert entries[-1].status == "matched"
    table = Table.objects.get(pk=entries[-1].table_id)
    assert table.rules["partners"] is True and table.seats_count == 4


def test_a_wish_that_makes_no_sense_is_refused_and_changes_nothing():
    alice = make_user("alice")
    for wish in (
        {"variant": "poker", "players": 2},
        {"variant": "podkidnoy", "players": 7},
        {"variant": "podkidnoy", "players": 3, "partners": True},
    ):
        with pytest.raises(matchmaking.QueueRefused):
            matchmaking.do_join_queue(user=alice, **wish)
    assert not QueueEntry.objects.exists()


def test_guests_queue_for_unrated_games_only():
    visitor = guest("Гость-1234")
    with pytest.raises(matchmaking.QueueRefused) as refusal:
        matchmaking.do_join_queue(user=visitor, variant="podkidnoy", players=2, rated=True)
    assert str(refusal.value) == "Для игры на рейтинг нужна учётная запись: сначала зарегистрируйтесь."
    assert matchmaking.do_join_queue(user=visitor, variant="podkidnoy", players=2).status == "waiting"


def test_somebody_who_has_gone_is_never_matched():
    alice, bob = make_user("alice"), make_user("bob")
    long_ago = timezone.now() - timedelta(seconds=matchmaking.STALE_SECONDS + 5)
    matchmaking.do_join_queue(user=alice, variant="podkidnoy", players=2, now=long_ago)
    assert matchmaking.do_join_queue(user=bob, variant="podkidnoy", players=2).status == "waiting"
    assert matchmaking.do_sweep_queue() == 0
    assert QueueEntry.objects.get(user=alice).status == QueueEntry.Status.LEFT


def test_polling_keeps_a_place_and_matching_is_idempotent():
    alice, bob = make_user("alice"), make_user("bob")
    matchmaking.do_join_queue(user=alice, variant="podkidnoy", players=2)
    matchmaking.do_join_queue(user=bob, variant="podkidnoy", players=2)
    table_id = QueueEntry.objects.get(user=alice).table_id
    for _ in range(3):
        assert matchmaking.do_poll_queue(user=alice).table_id == table_id
        assert matchmaking.do_sweep_queue() == 0
    assert Table.objects.count() == 1


def test_bots_fill_the_table_only_after_the_wait():
    alice = make_user("alice")
    started = timezone.now()
    matchmaking.do_join_queue(user=alice, variant="podkidnoy", players=3, now=started)
    with pytest.raises(matchmaking.QueueRefused):
        matchmaking.do_fill_with_bots(user=alice, now=started + timedelta(seconds=1))
    later = started + timedelta(seconds=matchmaking.BOTS_AFTER_SECONDS + 1)
    matchmaking.do_poll_queue(user=alice, now=later - timedelta(seconds=2))
    table = matchmaking.do_fill_with_bots(user=alice, now=later)
    assert not table.rated and table.status == Table.Status.PLAYING
    seats = list(TableSeat.objects.filter(table=table).order_by("number"))
    assert seats[0].user == alice and all(s.bot_level for s in seats[1:])
    assert QueueEntry.objects.get(user=alice).table_id == table.pk


def test_the_waiting_page_shows_the_wait_and_goes_to_the_table(client):
    alice, bob = make_user("alice"), make_user("bob")
    client.force_login(alice)
    response = client.post(reverse("games:play-now"), {"variant": "podkidnoy", "size": "2"})
    assert response.url == reverse("games:play-wait")
    page = client.get(reverse("games:play-wait")).content.decode()
    assert "Этой игры ждёт 1 игрок" in page and "Нужен ещё 1." in page
    matchmaking.do_join_queue(user=bob, variant="podkidnoy", players=2)
    status = client.get(reverse("games:play-status"), headers={"HX-Request": "true"})
    table_id = QueueEntry.objects.get(user=alice).table_id
    assert status["HX-Redirect"] == reverse("games:table", kwargs={"table_id": table_id})


def test_a_visitor_who_presses_play_now_becomes_a_guest(client):
    response = client.post(reverse("games:play-now"), {"variant": "perevodnoy", "size": "4p"})
    assert response.status_code == 302
    entry = QueueEntry.objects.get()
    assert entry.user.profile.is_guest and entry.players == 4 and entry.partners and entry.variant == "perevodnoy"


def test_the_housekeeping_task_is_registered_with_beat():
    task = PeriodicTask.objects.get(task="games.tasks.housekeeping")
    assert task.enabled and task.interval.every == 60
