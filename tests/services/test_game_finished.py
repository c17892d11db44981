"""games.signals.game_finished: sent once per game, after its result is committed."""

from __future__ import annotations

import pytest

from games import engine, signals
from games.models import Game, GameSeat
from tests.support.games import make_user, open_game, play_to_end

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    calls = []

    def receiver(sender, **kwargs):
        # What a receiver reads when it runs: the committed result.
        game = Game.objects.get(pk=kwargs["game_id"])
        seats = list(GameSeat.objects.filter(game=game).values_list("counted_place", flat=True))
        calls.append({**kwargs, "status": game.status, "result": game.result, "counted": seats})

    signals.game_finished.connect(receiver, dispatch_uid="test-game-finished")
    yield calls
    signals.game_finished.disconnect(dispatch_uid="test-game-finished")


def test_the_signal_comes_once_after_the_commit_with_the_stored_result(heard, django_capture_on_commit_callbacks):
    users = [make_user(f"s{i}") for i in range(2)]
    game = open_game(users, engine.Rules(players=2))
    with django_capture_on_commit_callbacks(execute=False) as pending:
        game = play_to_end(game, users)
    assert game.is_over
    assert heard == []  # nothing before the commit
    for callback in pending:
        callback()
    assert len(heard) == 1
    (call,) = heard
    assert call["game_id"] == game.pk and call["table_id"] == game.table_id
    assert call["variant"] == "podkidnoy" and call["rated"] is False
    assert call["status"] == Game.Status.FINISHED and call["result"] == game.result
    assert None not in call["counted"]


def test_a_receiver_that_fails_does_not_undo_the_move(heard, django_capture_on_commit_callbacks):
    def broken(sender, **kwargs):
        raise RuntimeError("a receiver's bug")

    signals.game_finished.connect(broken, dispatch_uid="test-broken")
    try:
        users = [make_user(f"t{i}") for i in range(2)]
        game = open_game(users, engine.Rules(players=2))
        with django_capture_on_commit_callbacks(execute=True):
            game = play_to_end(game, users)
    finally:
        signals.game_finished.disconnect(dispatch_uid="test-broken")
    assert Game.objects.get(pk=game.pk).is_over
    assert len(heard) == 1
