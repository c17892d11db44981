"""Turn timers (T7), autopilot, bots and the beat sweep, through the services.

Time is faked: do_advance_game(now=...) is what a worker calls with the clock.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import translation

from games import engine, positions, selectors
from games.models import Game, GameSeat, Move, Table
from games.services import notify, play, tables
from games.tasks import sweep_due_games
from tests.support.games import fresh, latest_game, make_user, moves, new_table, play_humans, seat_map, two_player_rules

pytestmark = pytest.mark.django_db

SECOND = timedelta(seconds=1)


@pytest.fixture
def people():
    return [make_user(f"p{i}") for i in range(6)]


def timed_duel(people, seconds=30):
    table = new_table(two_player_rules(), people[:2], turn_seconds=seconds)
    game = latest_game(table)
    return table, game


def test_a_deal_sets_the_deadline_of_the_opener(people):
    _, game = timed_duel(people)
    assert game.deadline is not None and game.bot_due_at is None
    left = (game.deadline - game.started_at).total_seconds()
    assert 29 <= left <= 31


def test_expiry_acts_for_the_opener_exactly_once_with_his_lowest_card(people):
    _, game = timed_duel(people)
    position = positions.position_of(game)
    (opener,) = position.to_move()
    lowest = min(position.hand(opener), key=lambda c: engine.strength(c, position.trump))

    assert play.do_advance_game(game_id=game.pk, now=game.deadline - SECOND) == 0
    assert fresh(game).move_count == 0

    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 0  # the same expiry again
    assert play.do_advance_game(game_id=game.pk, now=game.deadline + 5 * SECOND) == 0
    assert moves(game) == [(opener, f"attack {lowest}", Move.Source.TIMEOUT)]
    after = fresh(game)
    assert after.deadline == game.deadline + timedelta(seconds=30)  # the defender's fresh clock
    assert seat_map(game)[opener].timeouts_in_row == 1


def test_expiry_makes_the_defender_take_and_the_thrower_pass(people):
    _, game = timed_duel(people)
    position = positions.position_of(game)
    attacker, defender = position.attacker, position.defender
    users = {0: people[0], 1: people[1]}
    card = min(position.hand(attacker), key=lambda c: engine.strength(c, position.trump))
    play.do_player_move(game_id=game.pk, user=users[attacker], action=f"attack {card}")

    game = fresh(game)
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1
    assert moves(game)[-1] == (defender, "take", Move.Source.TIMEOUT)

    game = fresh(game)
    position = positions.position_of(game)
    assert position.to_move() == [attacker]  # he may throw in more, or pass
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1
    assert moves(game)[-1] == (attacker, "pass", Move.Source.TIMEOUT)
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 0
    seats = seat_map(game)
    assert seats[attacker].timeouts_in_row == 1  # his own attack came before
    assert seats[defender].timeouts_in_row == 1


def test_three_timeouts_in_a_row_put_the_seat_on_autopilot(people):
    _, game = timed_duel(people, seconds=15)
    users = {0: people[0], 1: people[1]}
    sleeper = None
    # Only one side sleeps: the other answers every move himself.
    for _ in range(200):
        game = fresh(game)
        position = positions.position_of(game)
        (seat,) = position.to_move() or [None]
        if sleeper is None:
            sleeper = seat
        if seat == sleeper:
            timeouts = seat_map(game)[sleeper].timeouts_in_row
            assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1
            if timeouts + 1 == play.AUTOPILOT_AFTER_TIMEOUTS:
                break
        else:
            action = play.bots.get_bot("heuristic", seed=1).choose(position.view(seat))
            play.do_player_move(game_id=game.pk, user=users[seat], action=action)
    seat = seat_map(game)[sleeper]
    assert (seat.timeouts_in_row, seat.autopilot, seat.abandoned) == (3, True, True)
    assert [m[2] for m in moves(game) if m[0] == sleeper] == [Move.Source.TIMEOUT] * 3

    # From now on a bot plays the seat, through the same path, and its owner may not.
    game = fresh(game)
    position = positions.position_of(game)
    with pytest.raises(play.MoveRefused) as refused:
        play.do_player_move(game_id=game.pk, user=users[sleeper], action="take")
    with translation.override("ru"):
        assert str(refused.value) == "После нескольких просрочек за вас играет автопилот."
    if sleeper in position.to_move():
        assert game.bot_due_at is not None and game.deadline is None
        assert play.do_advance_game(game_id=game.pk, now=game.bot_due_at) == 1
        assert moves(game)[-1][0::2] == (sleeper, Move.Source.AUTOPILOT)

    # Play it out: the autopilot seat's result counts as last place.
    game = play_humans(game, {1 - sleeper: users[1 - sleeper]})
    seats = seat_map(game)
    assert game.is_over
    assert seats[sleeper].counted_place == 2
    assert seats[1 - sleeper].counted_place == seats[1 - sleeper].place
    assert Table.objects.get(pk=game.table_id).status == Table.Status.FINISHED


def test_a_players_own_move_resets_his_timeouts(people):
    _, game = timed_duel(people)
    users = {0: people[0], 1: people[1]}
    position = positions.position_of(game)
    attacker = position.attacker
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1  # timeout: attack
    game = fresh(game)
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1  # the defender takes
    game = fresh(game)
    assert seat_map(game)[attacker].timeouts_in_row == 1
    play.do_player_move(game_id=game.pk, user=users[attacker], action="pass")
    assert seat_map(game)[attacker].timeouts_in_row == 0


def test_a_refused_move_changes_nothing(people):
    _, game = timed_duel(people)
    position = positions.position_of(game)
    defender_user = people[position.defender]
    before = (game.move_count, game.state_json, game.deadline)
    with pytest.raises(play.MoveRefused) as refused:
        play.do_player_move(game_id=game.pk, user=defender_user, action="take")
    assert refused.value.code == "table_empty"
    with pytest.raises(play.MoveRefused) as refused:
        play.do_player_move(game_id=game.pk, user=people[position.attacker], action="play the ace")
    assert refused.value.code == "malformed_action"
    with pytest.raises(play.MoveRefused):
        play.do_player_move(game_id=game.pk, user=people[5], action="take")  # not at this table
    with pytest.raises(play.MoveRefused):
        play.do_player_move(
            game_id=game.pk, user=people[position.attacker], action="pass", expected_seat=position.defender
        )
    game = fresh(game)
    assert (game.move_count, game.state_json, game.deadline) == before
    assert moves(game) == []


def test_a_bot_moves_after_its_pause_through_the_same_path(people):
    table = new_table(two_player_rules(), [people[0]], bot_seats={1: "heuristic"})
    game = latest_game(table)
    human = {0: people[0]}
    # Get to a position where the human has just moved and the bot is awaited.
    while True:
        game = fresh(game)
        position = positions.position_of(game)
        if 1 in position.to_move():
            break
        play_humans(game, human, max_moves=1)
    game = fresh(game)
    assert game.bot_due_at is not None and game.deadline is None
    last = Move.objects.filter(game=game).last()
    pause = (game.bot_due_at - (last.created_at if last else game.started_at)).total_seconds()
    assert 0.5 <= pause <= 2.0, pause
    count = game.move_count
    assert play.do_advance_game(game_id=game.pk, now=game.bot_due_at - SECOND / 10) == 0
    assert play.do_advance_game(game_id=game.pk, now=game.bot_due_at) == 1
    assert play.do_advance_game(game_id=game.pk, now=game.bot_due_at) == 0  # a next bot move needs its own pause
    game = fresh(game)
    bot_moves = Move.objects.filter(game=game, number__gte=count)
    assert bot_moves.first().seat == 1 and bot_moves.first().source == Move.Source.BOT
    assert positions.replay(game) == engine.Game.from_json(game.state_json)


def test_four_bots_in_partners_play_a_whole_game_through_advance():
    rules = engine.Rules(variant="perevodnoy", players=4, partners=True)
    table = tables.do_create_table(
        rules=rules, bot_seats={0: "heuristic", 1: "random", 2: "heuristic", 3: "random"}, start=True
    )
    game = latest_game(table)
    for _ in range(2000):
        game = fresh(game)
        if game.is_over:
            break
        assert game.bot_due_at is not None
        assert play.do_advance_game(game_id=game.pk, now=game.bot_due_at) == 1
    game = fresh(game)
    assert game.is_over and game.status == Game.Status.FINISHED and game.finished_at
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    assert game.deadline is None and game.bot_due_at is None
    seats = list(GameSeat.objects.filter(game=game))
    assert all(s.place is not None and s.counted_place == s.place for s in seats)
    assert {s.team for s in seats} == {0, 1}
    losers = {s.number for s in seats if s.is_loser}
    assert sorted(losers) == sorted(game.result["losers"])
    if losers:
        assert losers in ({0, 2}, {1, 3})  # the losing pair
    assert {m.source for m in Move.objects.filter(game=game)} == {Move.Source.BOT}
    assert positions.replay(game) == engine.Game.from_json(game.state_json)
    assert play.do_advance_game(game_id=game.pk, now=game.finished_at + 60 * SECOND) == 0


def test_the_beat_sweep_finds_games_whose_nudge_was_lost(people, monkeypatch, django_capture_on_commit_callbacks):
    lost = []
    monkeypatch.setattr(notify, "nudge_game", lambda *args: lost.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        table = tables.do_create_table(rules=two_player_rules(), bot_seats={0: "random", 1: "random"}, start=True)
    game = latest_game(table)
    assert lost == [(game.pk, "podkidnoy", pytest.approx((game.bot_due_at - game.started_at).total_seconds(), abs=0.1))]
    assert selectors.due_game_ids(now=game.bot_due_at - SECOND) == []
    assert selectors.due_game_ids(now=game.bot_due_at) == [game.pk]
    Game.objects.filter(pk=game.pk).update(bot_due_at=game.bot_due_at - 10 * SECOND)  # long overdue
    assert sweep_due_games() == 1
    assert fresh(game).move_count == 1
    assert sweep_due_games() == 0  # the next bot waits for its own pause


def test_resigning_hands_the_seat_to_the_autopilot(people):
    _, game = timed_duel(people)
    play.do_resign(game_id=game.pk, user=people[0])
    seat = seat_map(game)[0]
    assert seat.autopilot and seat.abandoned
    game = fresh(game)
    if 0 in positions.position_of(game).to_move():
        assert game.bot_due_at is not None


def test_play_again_deals_a_new_game_with_a_new_seed(people):
    table = new_table(two_player_rules(), [people[0]], bot_seats={1: "random"})
    first = play_humans(latest_game(table), {0: people[0]})
    assert first.is_over
    with pytest.raises(tables.TableRefused):
        tables.do_start_game(table_id=table.pk, user=people[3])  # not seated here
    second = tables.do_start_game(table_id=table.pk, user=people[0])
    assert second.number == 2 and second.pk != first.pk
    assert second.seed != first.seed and second.seed_hash == positions.seed_hash(second.seed)
    assert second.seed_hash != first.seed_hash
    assert second.dealer == (first.result["durak"] if first.result["durak"] is not None else 0)
    assert second.move_count == 0 and not second.is_over
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    with pytest.raises(tables.TableRefused):
        tables.do_start_game(table_id=table.pk, user=people[0])  # already on


def test_a_stale_bot_time_is_cleared_and_the_running_clock_kept(people):
    _, game = timed_duel(people)
    stale = game.deadline - 20 * SECOND
    Game.objects.filter(pk=game.pk).update(bot_due_at=stale)  # no bot sits here
    assert selectors.due_game_ids(now=stale) == [game.pk]
    assert play.do_advance_game(game_id=game.pk, now=stale) == 0
    after = fresh(game)
    assert after.bot_due_at is None and after.deadline == game.deadline and after.move_count == 0
    assert selectors.due_game_ids(now=stale) == []
