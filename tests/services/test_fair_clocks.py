"""Issue 17, "Fair clocks" (and "What was seen" 2: a 10 s outage on my turn charged three
timeouts): time the site was down is never charged, and a disconnected player gets one
extra wait per game before a timeout counts.

The outage is simulated as it looks in the database after a restart: the sweep's last
heartbeat 30 s back and the turn's deadline run out 20 s ago.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import positions
from games.models import Game, Move, SweepHeartbeat, TableSeat
from games.services import clock, housekeeping, notify, play, presence
from games.tasks import advance_game, sweep_due_games
from tests.support.games import fresh, latest_game, make_user, moves, new_table, seat_map, two_player_rules

pytestmark = pytest.mark.django_db

SECOND = timedelta(seconds=1)


@pytest.fixture
def duel():
    """A game of two with a 30 s turn timer; returns (table, game, the users by seat)."""
    people = [make_user("anna"), make_user("boris")]
    table = new_table(two_player_rules(), people, turn_seconds=30)
    game = latest_game(table)
    return table, game, {seat.number: seat.user for seat in seat_map(game).values()}


def after_an_outage(game: Game, *, down=30, expired=20):
    """The heartbeat `down` seconds back, the game's deadline `expired` seconds gone."""
    now = timezone.now()
    SweepHeartbeat.objects.update_or_create(pk=clock.HEARTBEAT_PK, defaults={"beat_at": now - down * SECOND})
    Game.objects.filter(pk=game.pk).update(deadline=now - expired * SECOND)
    return fresh(game)


def heartbeat():
    return SweepHeartbeat.objects.get(pk=clock.HEARTBEAT_PK).beat_at


def test_issue17_an_outage_charges_no_timeout_and_moves_the_deadline_on_by_the_gap(duel):
    _, game, _ = duel
    game = after_an_outage(game)
    beat_before = heartbeat()

    assert sweep_due_games() == 0

    assert moves(game) == []  # no «время вышло»
    assert all(seat.timeouts_in_row == 0 for seat in seat_map(game).values())
    gap = heartbeat() - beat_before
    assert 30 * SECOND <= gap < 35 * SECOND
    assert fresh(game).deadline == game.deadline + gap  # 10 s of his turn are left, as when the site stopped


def test_issue17_a_second_sweep_does_not_move_the_deadline_again(duel):
    _, game, _ = duel
    game = after_an_outage(game)
    sweep_due_games()
    extended = fresh(game).deadline

    assert sweep_due_games() == 0
    assert clock.do_beat() == timedelta(0)
    assert fresh(game).deadline == extended
    assert moves(game) == []


def test_issue17_a_beat_that_waited_for_the_lock_behind_another_moves_nothing(duel):
    # Two sweeps read the clock at the same moment; the second gets the row after the first.
    _, game, _ = duel
    game = after_an_outage(game)
    now = timezone.now()
    assert clock.do_beat(now=now) > 25 * SECOND
    extended = fresh(game).deadline
    assert clock.do_beat(now=now) == timedelta(0)
    assert clock.do_beat(now=now - SECOND) == timedelta(0)  # an older clock, neither
    assert fresh(game).deadline == extended
    assert heartbeat() == now


def test_issue17_without_an_outage_an_expired_turn_is_charged_as_before(duel):
    _, game, _ = duel
    game = after_an_outage(game, down=1, expired=20)
    (opener,) = positions.position_of(game).to_move()

    assert sweep_due_games() == 1

    assert [(seat, source) for seat, _action, source in moves(game)] == [(opener, Move.Source.TIMEOUT)]
    assert seat_map(game)[opener].timeouts_in_row == 1


def test_issue17_the_first_sweep_there_is_charges_a_timeout_it_finds(duel):
    # Nothing says the site was down before the first heartbeat: the clock is as it was.
    _, game, _ = duel
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - 20 * SECOND)
    assert not SweepHeartbeat.objects.exists()
    assert sweep_due_games() == 1
    assert SweepHeartbeat.objects.count() == 1


def test_issue17_a_worker_nudge_before_the_first_sweep_after_an_outage_charges_nothing(duel):
    # A nudge redelivered on restart may reach a worker before beat's first sweep.
    _, game, _ = duel
    game = after_an_outage(game)
    assert advance_game(game.pk) == 0
    assert moves(game) == []
    assert fresh(game).deadline == game.deadline  # left for the sweep to move on
    sweep_due_games()
    assert fresh(game).deadline > timezone.now()


def test_issue17_the_outage_moves_only_running_clocks(duel):
    table, game, _ = duel
    untimed = latest_game(new_table(two_player_rules(), [make_user("vera"), make_user("gleb")]))
    assert untimed.deadline is None
    game = after_an_outage(game)
    assert clock.do_beat() > 25 * SECOND
    assert fresh(untimed).deadline is None
    assert fresh(game).deadline > game.deadline


def test_issue17_a_game_without_a_timer_is_not_ended_as_idle_for_time_the_site_was_down():
    game = latest_game(new_table(two_player_rules(), [make_user("vera"), make_user("gleb")]))
    now = timezone.now()
    Game.objects.filter(pk=game.pk).update(started_at=now - 40 * 60 * SECOND)  # 40 min, 35 of them down
    SweepHeartbeat.objects.create(pk=clock.HEARTBEAT_PK, beat_at=now - 35 * 60 * SECOND)
    assert clock.do_beat(now=now) > 30 * 60 * SECOND

    assert housekeeping.do_close_idle_tables(now=now)["ended"] == 0
    assert not fresh(game).is_over
    assert housekeeping.do_close_idle_tables(now=now + housekeeping.PLAYING_IDLE + SECOND)["ended"] == 1


def go_offline(table, user):
    assert presence.do_mark_offline(table_id=table.pk, user_id=user.pk)


def test_issue17_a_disconnected_player_gets_one_extra_wait_per_game(duel, settings):
    settings.DISCONNECT_GRACE_SECONDS = 15
    table, game, users = duel
    (opener,) = positions.position_of(game).to_move()
    go_offline(table, users[opener])

    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 0
    graced = fresh(game)
    assert graced.deadline == game.deadline + 15 * SECOND
    assert moves(game) == []
    assert seat_map(game)[opener].grace_used and seat_map(game)[opener].timeouts_in_row == 0

    # Still gone when the extra wait is over: now the timeout counts.
    assert play.do_advance_game(game_id=game.pk, now=graced.deadline) == 1
    assert [(seat, source) for seat, _action, source in moves(game)] == [(opener, Move.Source.TIMEOUT)]
    assert seat_map(game)[opener].timeouts_in_row == 1

    # His next turn of the same game runs out while he is still away: no second extra wait.
    game = fresh(game)
    position = positions.position_of(game)
    while opener not in position.to_move():
        (other,) = position.to_move()
        play.do_player_move(game_id=game.pk, user=users[other], action=str(position.legal_actions(other)[0]))
        game = fresh(game)
        position = positions.position_of(game)
    count = game.move_count
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1
    assert fresh(game).move_count == count + 1
    assert seat_map(game)[opener].timeouts_in_row == 2


def test_issue17_a_connected_player_gets_no_extra_wait(duel):
    table, game, users = duel
    (opener,) = positions.position_of(game).to_move()
    go_offline(table, users[opener])
    assert presence.do_mark_online(table_id=table.pk, user_id=users[opener].pk)
    assert TableSeat.objects.get(table=table, user=users[opener]).offline_since is None

    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1
    assert not seat_map(game)[opener].grace_used


def test_issue17_the_extra_wait_is_told_to_the_table(duel, django_capture_on_commit_callbacks, monkeypatch):
    table, game, users = duel
    (opener,) = positions.position_of(game).to_move()
    go_offline(table, users[opener])
    told = []
    monkeypatch.setattr(notify, "table_changed", lambda table_id, *args, **kwargs: told.append(kwargs))
    with django_capture_on_commit_callbacks(execute=True):
        play.do_advance_game(game_id=game.pk, now=game.deadline)
    (message,) = told
    assert message["snapshot"]["game"]["deadline"] == (game.deadline + clock.grace_period()).isoformat()


def test_issue17_offline_is_marked_once_and_only_for_a_seated_player(duel):
    table, _game, users = duel
    stranger = make_user("stranger")
    assert not presence.do_mark_offline(table_id=table.pk, user_id=stranger.pk)
    assert not presence.do_mark_offline(table_id=table.pk, user_id=None)
    first = timezone.now() - 5 * SECOND
    assert presence.do_mark_offline(table_id=table.pk, user_id=users[0].pk, now=first)
    assert not presence.do_mark_offline(table_id=table.pk, user_id=users[0].pk)  # a second tab closing
    assert TableSeat.objects.get(table=table, user=users[0]).offline_since == first
    assert not presence.do_mark_online(table_id=table.pk, user_id=users[1].pk)  # he was never away
