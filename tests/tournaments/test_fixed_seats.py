"""A tournament round's seats are fixed, and its steps cannot freeze it (issue 16,
"What was seen" point 1 and the first bullet of "What must work").

Seen: between two games of a round the table is `finished`, any seated entrant
could `POST /t/<id>/leave/` (the table was reopened as waiting), an outsider then
joined and was dealt the entrant's games; with nobody joining, dealing the next
game raised inside the transaction that recorded the result, so the result was
rolled back and the sweep failed every 5 seconds, in silence, for ever.
"""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, Table, TableSeat
from games.services import tables
from tournaments import services, tasks
from tournaments.models import Result, Round, RoundTable, StuckStep, Tournament

from .helpers import latest_game, make_event, make_users, play_game

pytestmark = pytest.mark.django_db

FIXED = "Этот стол принадлежит туру турнира: места за ним закреплены."
NOTICE = "Шаг события раз за разом не удаётся"


def started_event(users, **kw):
    event = make_event(rounds=1, **kw)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    return event, RoundTable.objects.get(round__tournament=event)


def seats_of(table_id):
    return list(TableSeat.objects.filter(table_id=table_id).order_by("number").values_list("user_id", "bot_level"))


def test_a_seated_entrant_cannot_leave_between_two_games_and_an_outsider_cannot_join(client, django_user_model):
    users = make_users(4)
    event, rt = started_event(users, games_per_round=2)
    play_game(latest_game(rt.table_id))  # the first game is over, its record not yet handled: between two games
    table = Table.objects.get(pk=rt.table_id)
    assert table.status == Table.Status.FINISHED and table.managed_by_event
    before = seats_of(table.pk)
    seated = TableSeat.objects.filter(table=table).first().user
    client.force_login(seated)
    response = client.post(f"/t/{table.pk}/leave/", follow=True)
    assert FIXED in response.content.decode()
    assert seats_of(table.pk) == before
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED  # not reopened as waiting
    outsider = django_user_model.objects.create_user(username="outsider")
    client.force_login(outsider)
    response = client.post(f"/t/{table.pk}/join/", follow=True)
    assert FIXED in response.content.decode()
    assert not TableSeat.objects.filter(table=table, user=outsider).exists()
    with pytest.raises(tables.TableRefused) as refused:
        tables.do_join_table(table_id=table.pk, user=outsider)
    assert str(refused.value) == FIXED
    # The table page offers neither leaving nor a seat.
    client.force_login(seated)
    page = client.get(f"/t/{table.pk}/").content.decode()
    assert f"/t/{table.pk}/leave/" not in page
    # The round goes on with the same four people.
    tasks.sweep_events()
    second = latest_game(rt.table_id)
    assert second.number == 2 and not second.is_over
    assert sorted(second.seats.values_list("user_id", flat=True)) == sorted(u.pk for u in users)


def test_no_leave_while_a_game_is_on_nor_after_the_round():
    users = make_users(4)
    event, rt = started_event(users)
    for user in users:
        with pytest.raises(tables.TableRefused):
            tables.do_leave_table(table_id=rt.table_id, user=user)
    play_game(latest_game(rt.table_id))
    tasks.sweep_events()
    assert Round.objects.get(tournament=event).status == Round.Status.FINISHED
    for user in users:
        with pytest.raises(tables.TableRefused) as refused:
            tables.do_leave_table(table_id=rt.table_id, user=user)
        assert str(refused.value) == FIXED
    assert sorted(u for u, _ in seats_of(rt.table_id)) == sorted(u.pk for u in users)


def poison(monkeypatch):
    def broken(*, table_id):
        raise RuntimeError("the variant queue is gone")

    monkeypatch.setattr(services.game_tables, "do_deal_next_game", broken)


def failure_lines(caplog):
    return [r for r in caplog.records if r.name.startswith("tournaments") and r.levelno >= logging.WARNING]


def test_a_failing_deal_keeps_the_result_and_is_logged_and_shown_once(monkeypatch, caplog, client, director):
    users = make_users(4)
    event, rt = started_event(users, games_per_round=2)
    first = play_game(latest_game(rt.table_id))
    poison(monkeypatch)
    caplog.set_level(logging.INFO)
    tasks.record_game(first.pk)  # the finished-game task: the deal after it fails
    assert Result.objects.filter(game_id=first.pk).count() == 4, "the result is stored whatever happens next"
    for _ in range(50):  # 50 sweeps within seconds: the backoff holds the retries back
        tasks.sweep_events()
    stuck = StuckStep.objects.get(tournament=event)
    assert stuck.failures == 1 and stuck.step == StuckStep.Step.DEAL and stuck.round_table_id == rt.pk
    pauses = []
    for _ in range(50):  # and 50 more, each after its pause has passed
        StuckStep.objects.filter(pk=stuck.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
        tasks.sweep_events()
        stuck.refresh_from_db()
        pauses.append(stuck.next_attempt_at - stuck.last_failed_at)
    assert stuck.failures == 51
    assert pauses == sorted(pauses) and pauses[0] < pauses[-1] == services.RETRY_MAX, "the pause grows, capped"
    assert len(failure_lines(caplog)) == 1, "logged once, not at every sweep"
    assert Result.objects.filter(round__tournament=event).count() == 4
    assert Game.objects.filter(table_id=rt.table_id).count() == 1
    client.force_login(director)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert page.count(NOTICE) == 1
    assert "раздача следующей партии" in page and "Повторить сейчас" in page
    # Still poisoned: "retry now" says it failed again, and logs nothing more.
    response = client.post(f"/tournaments/{event.pk}/direct/", {"action": "retry"}, follow=True)
    assert "Шаг снова не удался: повтор будет позже." in response.content.decode()
    assert len(failure_lines(caplog)) == 1
    # The poison is gone: the retry deals the second game and the notice goes.
    monkeypatch.undo()
    response = client.post(f"/tournaments/{event.pk}/direct/", {"action": "retry"}, follow=True)
    assert NOTICE not in response.content.decode()
    assert not StuckStep.objects.filter(tournament=event).exists()
    second = latest_game(rt.table_id)
    assert second.number == 2 and not second.is_over
    play_game(second)
    tasks.sweep_events()
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    assert Result.objects.filter(round__tournament=event).count() == 8


def test_the_sweep_alone_stores_the_result_of_a_table_it_cannot_deal(monkeypatch, caplog):
    users = make_users(4)
    event, rt = started_event(users, games_per_round=2)
    first = play_game(latest_game(rt.table_id))  # its finished-game message is lost
    poison(monkeypatch)
    caplog.set_level(logging.INFO)
    for _ in range(100):
        tasks.sweep_events()
    assert Result.objects.filter(game_id=first.pk).count() == 4
    assert len(failure_lines(caplog)) == 1
    assert StuckStep.objects.get(tournament=event).failures == 1
    monkeypatch.undo()
    StuckStep.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()  # the retry after the pause succeeds
    assert not StuckStep.objects.exists()
    assert latest_game(rt.table_id).number == 2


def test_the_director_ends_a_stuck_tables_round_as_played(monkeypatch, client, director):
    users = make_users(4)
    event, rt = started_event(users, games_per_round=3)
    first = play_game(latest_game(rt.table_id))
    poison(monkeypatch)
    tasks.record_game(first.pk)
    client.force_login(director)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert "Завершить тур за этим столом по сыгранным партиям" in page
    client.post(f"/tournaments/{event.pk}/direct/", {"action": "end-table", "round_table": str(rt.pk)})
    rt.refresh_from_db()
    event.refresh_from_db()
    assert rt.done and rt.games_played == 1
    assert event.status == Tournament.Status.FINISHED  # one round, one table: the event is over
    assert not StuckStep.objects.exists()
    assert Result.objects.filter(round__tournament=event).count() == 4
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_end_table_round(tournament_id=event.pk, round_table_id=rt.pk, by=director)
    assert str(refused.value) == "Тур за этим столом уже завершён."


def test_ending_a_tables_round_is_for_directors_and_not_while_a_game_is_on(director):
    users = make_users(4)
    event, rt = started_event(users, games_per_round=2)
    with pytest.raises(services.TournamentRefused):
        services.do_end_table_round(tournament_id=event.pk, round_table_id=rt.pk, by=users[0])
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_end_table_round(tournament_id=event.pk, round_table_id=rt.pk, by=director)
    assert str(refused.value) == "За этим столом идёт партия: завершите тур после её окончания."
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_retry_stuck_step(tournament_id=event.pk, by=director)
    assert str(refused.value) == "Ни один шаг этого события не ждёт повтора."
    rt.refresh_from_db()
    assert not rt.done


def test_a_table_that_cannot_be_dealt_holds_back_no_other_table(monkeypatch, caplog, director):
    users = make_users(8)
    event = make_event(rounds=1, games_per_round=2)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    broken_rt, fine_rt = RoundTable.objects.filter(round__tournament=event).order_by("number")
    deal = services.game_tables.do_deal_next_game

    def deal_but_one(*, table_id):
        if table_id == broken_rt.table_id:
            raise RuntimeError("this table's deal is broken")
        return deal(table_id=table_id)

    monkeypatch.setattr(services.game_tables, "do_deal_next_game", deal_but_one)
    caplog.set_level(logging.INFO)
    for rt in (broken_rt, fine_rt):
        play_game(latest_game(rt.table_id))
    for _ in range(100):
        tasks.sweep_events()
    assert latest_game(fine_rt.table_id).number == 2, "the other table goes on"
    play_game(latest_game(fine_rt.table_id))
    tasks.sweep_events()
    fine_rt.refresh_from_db()
    assert fine_rt.done and fine_rt.games_played == 2
    assert len(failure_lines(caplog)) == 1
    stuck = StuckStep.objects.get(tournament=event)
    assert stuck.round_table_id == broken_rt.pk and stuck.failures == 1
    assert Result.objects.filter(round_table=broken_rt).count() == 4
    services.do_end_table_round(tournament_id=event.pk, round_table_id=broken_rt.pk, by=director)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    assert not StuckStep.objects.exists()
