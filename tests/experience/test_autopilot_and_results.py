"""Always knowing what is happening (issue 10, items 5 and 6): autopilot, "I'm back",
and results that say the same thing on the table, the record and the profile.

T7: three timeouts in a row put a seat on autopilot; the seat is then abandoned and
counts as last place (`GameSeat.counted_place`). The club's rule for coming back:
at an unrated table "I'm back" makes the result count as played; at a rated table
the seat still counts as last.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from games import engine
from games.models import Game, GameSeat
from games.selectors import table_snapshot
from games.services import play, tables
from games.table import presenters
from tests.support.games import fresh, latest_game, make_user, seat_map

pytestmark = pytest.mark.django_db


def timer_game(users, rated=False):
    table = tables.do_create_table(
        rules=engine.Rules(players=len(users)),
        host=users[0],
        seat_users=users,
        turn_seconds=15,
        rated=rated,
        start=True,
    )
    return latest_game(table)


def time_out_until_autopilot(game, seat_number):
    """Let the turn timer run out (T7) until `seat_number` is on autopilot."""
    for _ in range(40):
        seats = seat_map(game)
        if seats[seat_number].autopilot:
            return fresh(game)
        game = fresh(game)
        if game.deadline is not None:
            play.do_advance_game(game_id=game.pk, now=game.deadline)
        elif game.bot_due_at is not None:
            play.do_advance_game(game_id=game.pk, now=game.bot_due_at)
        else:
            raise AssertionError("nothing is due")
    raise AssertionError("the seat never went on autopilot")


def context_for(game, user):
    snapshot = table_snapshot(game.table_id)
    seat = next(s.number for s in GameSeat.objects.filter(game=game) if s.user_id == user.pk)
    with translation.override("ru"):
        return presenters.table_context(snapshot, seat, viewer_id=user.pk)


def test_T7_autopilot_hides_the_controls_and_says_so():
    alice, bob = make_user("alice"), make_user("bob")
    game = timer_game([alice, bob])
    game = time_out_until_autopilot(game, 0)
    ctx = context_for(game, alice)
    assert ctx["on_autopilot"] and ctx["can_return"]
    assert ctx["status_text"] == "Автопилот играет за вас."
    assert not ctx["my_turn"]
    assert ctx["buttons"] == [] and not any(c["playable"] for c in ctx["hand"])


def test_I_am_back_returns_the_seat_and_an_unrated_result_counts_normally():
    alice, bob = make_user("alice"), make_user("bob")
    game = time_out_until_autopilot(timer_game([alice, bob]), 0)
    play.do_return_to_seat(game_id=game.pk, user=alice)
    seat = seat_map(game)[0]
    assert not seat.autopilot and not seat.abandoned and seat.timeouts_in_row == 0
    ctx = context_for(game, alice)
    assert not ctx["on_autopilot"]
    game = fresh(game)
    if 0 in engine.Game.from_json(game.state_json).to_move():
        assert game.deadline is not None, "the turn timer runs for him again"


def test_I_am_back_at_a_rated_table_still_counts_as_last():
    alice, bob = make_user("alice"), make_user("bob")
    game = time_out_until_autopilot(timer_game([alice, bob], rated=True), 0)
    play.do_return_to_seat(game_id=game.pk, user=alice)
    seat = seat_map(game)[0]
    assert not seat.autopilot and seat.abandoned
    ctx = context_for(game, alice)
    assert "рейтинговый" in ctx["resign_counts"]


def test_I_am_back_is_refused_when_the_seat_is_not_on_autopilot():
    alice, bob = make_user("alice"), make_user("bob")
    game = timer_game([alice, bob])
    with pytest.raises(play.MoveRefused):
        play.do_return_to_seat(game_id=game.pk, user=alice)
    with pytest.raises(play.MoveRefused):
        play.do_return_to_seat(game_id=game.pk, user=make_user("carol"))


def test_after_resigning_the_status_does_not_say_it_is_your_move():
    alice, bob = make_user("alice"), make_user("bob")
    game = timer_game([alice, bob])
    play.do_resign(game_id=game.pk, user=alice)
    ctx = context_for(game, alice)
    assert "Ваш ход" not in ctx["status_text"]
    assert ctx["status_text"] == "Автопилот играет за вас."


def test_the_back_button_view(client):
    alice, bob = make_user("alice"), make_user("bob")
    game = timer_game([alice, bob])
    play.do_resign(game_id=game.pk, user=alice)
    client.force_login(alice)
    page = client.get(reverse("games:table", kwargs={"table_id": game.table_id})).content.decode()
    assert "Вернуться в игру" in page  # he never said how to speak of him: words without gender
    client.post(reverse("games:table-back", kwargs={"table_id": game.table_id}))
    assert not seat_map(game)[0].autopilot


def resigned_game_played_out(players=3):
    users = [make_user(f"p{i}") for i in range(players)]
    table = tables.do_create_table(rules=engine.Rules(players=players), host=users[0], seat_users=users, start=True)
    game = latest_game(table)
    play.do_resign(game_id=game.pk, user=users[0])
    # The others leave too: only autopilots play on, and the game ends at once.
    for user in users[1:]:
        play.do_resign(game_id=game.pk, user=user)
    play.do_finish_now(game_id=game.pk, user=users[0])
    return fresh(game), users


def test_R19_a_seat_that_left_counts_as_last_on_the_table_the_record_and_the_profile(client):
    game, users = resigned_game_played_out(3)
    assert game.is_over
    seats = seat_map(game)
    for seat in seats.values():
        assert seat.counted_place == 3, "every seat left: every one counts as last"
    snapshot = table_snapshot(game.table_id)
    with translation.override("ru"):
        ctx = presenters.table_context(snapshot, 0, viewer_id=users[0].pk)
    assert [row["place"] for row in ctx["result"]["places"]] == [3, 3, 3]
    assert all(row["abandoned"] for row in ctx["result"]["places"])
    played = {row["seat"]: row["played_place"] for row in ctx["result"]["places"]}
    assert played == {n: (s.place if s.place != 3 else None) for n, s in seats.items()}

    client.force_login(users[0])
    record = client.get(reverse("games:game-record", kwargs={"game_id": game.pk})).content.decode()
    assert record.count("выход из игры: последнее место") == 3  # a result column: words without gender
    profile = client.get(reverse("games:profile", kwargs={"username": users[0].username})).content.decode()
    assert "выход из игры: последнее место" in profile


def test_the_resign_dialog_promises_what_really_happens():
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = tables.do_create_table(
        rules=engine.Rules(players=3), host=alice, seat_users=[alice, bob, carol], start=True
    )
    game = latest_game(table)
    ctx = context_for(game, alice)
    assert "последнее место (3-е из 3)" in ctx["resign_counts"]
    play.do_resign(game_id=game.pk, user=alice)
    play.do_resign(game_id=game.pk, user=bob)
    play.do_resign(game_id=game.pk, user=carol)
    play.do_finish_now(game_id=game.pk, user=alice)
    assert seat_map(game)[0].counted_place == 3


def test_finish_now_needs_a_player_whose_part_is_over():
    alice = make_user("alice")
    table = tables.do_create_table(rules=engine.Rules(players=2), host=alice, bot_seats={1: "heuristic"}, start=True)
    game = latest_game(table)
    with pytest.raises(play.MoveRefused):
        play.do_finish_now(game_id=game.pk, user=alice)  # she still plays
    play.do_resign(game_id=game.pk, user=alice)
    made = play.do_finish_now(game_id=game.pk, user=alice)
    game = fresh(game)
    assert made > 0 and game.is_over and game.move_count == len(game.moves.all())
    assert Game.objects.get(pk=game.pk).result is not None
