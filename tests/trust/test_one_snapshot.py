"""One snapshot per page: the log a table page shows belongs to the state it shows."""

from __future__ import annotations

import pytest

from games import engine, positions, selectors
from games.models import Game
from games.services import play
from games.services import tables as table_services
from games.table import presenters
from tests.support.games import human_choice, latest_game

pytestmark = pytest.mark.django_db

recent_events = positions.recent_events  # (the test's own reads, whatever the page calls)


def test_a_move_between_the_reads_does_not_put_the_log_ahead_of_the_state(client, players, monkeypatch):
    users = dict(enumerate(players[:2]))
    table = table_services.do_create_table(rules=engine.Rules(players=2), seat_users=players[:2], start=True)
    game = latest_game(table)
    read = selectors.table_snapshot

    def snapshot_then_a_move(table_id):
        snapshot = read(table_id)
        # Another player moves right after the page read the state (before it reads the log).
        fresh = Game.objects.get(pk=game.pk)
        position = positions.position_of(fresh)
        seat = position.to_move()[0]
        play.do_player_move(
            game_id=game.pk, user=users[seat], action=human_choice(position, seat, fresh.move_count), expected_seat=seat
        )
        return snapshot

    monkeypatch.setattr(selectors, "table_snapshot", snapshot_then_a_move)
    client.force_login(players[0])
    response = client.get(f"/table/{table.pk}/")
    assert Game.objects.get(pk=game.pk).move_count == 1  # the move did happen meanwhile
    assert response.context["game"]["move_count"] == 0  # the page shows the state before it ...
    snapshot = read(table.pk)
    snapshot["game"]["move_count"], snapshot["game"]["state_json"] = 0, game.state_json
    events, _ = recent_events(game.pk, upto=0)
    expected = presenters.table_context(snapshot, 0, events, viewer_id=players[0].pk)["log"]
    assert response.context["log"] == expected  # ... and the log of exactly that state
    moved, _ = recent_events(game.pk)
    assert len(moved) > len(events)  # (the move's log line exists: it was left out, not missing)
