"""The result panel ranks by the stored counted place (issue 16, "What was seen" 5:
a resigner whose autopilot then won stood beside the durak as a tie, both "2").

`games.services.play.counted_places` is the one rule: a seat that left ranks strictly
below everyone who played on, the durak included; the panel reads what it stored."""

from __future__ import annotations

import pytest

from games import engine
from games.models import GameSeat, Table
from games.selectors import table_snapshot
from games.services import play
from games.services import tables as table_services
from games.table import presenters, rendering
from tests.ratings.helpers import people
from tests.ratings.test_trust import play_out
from tests.support.games import latest_game

pytestmark = pytest.mark.django_db


def resigned_and_won_by_autopilot():
    """Anna resigns at once; Boris plays randomly until anna's autopilot wins."""
    anna, boris = people("anna", "boris")
    for _attempt in range(6):
        table = table_services.do_create_table(
            rules=engine.Rules(players=2), host=anna, seat_users=[anna, boris], start=True
        )
        game = latest_game(table)
        play.do_resign(game_id=game.pk, user=anna)
        game = play_out(game, {1: (boris, "random")})
        if game.result.get("durak") == 1:
            return table, game, anna, boris
        Table.objects.filter(pk=table.pk).update(status="closed")
    raise AssertionError("the autopilot never won")


def test_the_panel_puts_the_one_who_played_on_first_above_the_resigner():
    table, game, anna, boris = resigned_and_won_by_autopilot()
    seats = {s.number: s for s in GameSeat.objects.filter(game=game)}
    assert (seats[0].place, seats[1].place) == (1, 2) and seats[0].abandoned
    context = presenters.table_context(table_snapshot(table.pk), 1, viewer_id=boris.pk)
    rows = [(r["name"], r["place"], r["played_place"]) for r in context["result"]["places"]]
    assert rows == [("boris", 1, 2), ("anna", 2, 1)], "not a tie at place 2"
    html = rendering.live_fragments(context, "ru")
    assert "Ничья" not in html
    assert html.index('<span class="t-place">1</span> boris') < html.index('<span class="t-place">2</span> anna')
