"""Issue 17, "Presence and leavers" (what was seen 4: "seats show no online/offline state"):
every seat panel tells everyone at the table whether its player is there (online), has
closed his tab (offline) or has left the game to the autopilot (left), and it changes
live: the others' sockets are sent the seat panel again when it does."""

from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from django.utils import translation

from games import engine
from games.models import Game, Profile, TableSeat
from games.positions import position_of
from games.services import play
from games.services import tables as table_services
from games.table import presenters, rendering
from tests.support import games as support_games
from tests.support.snapshots import snapshot_for
from tests.support.sockets import FRAME_TIMEOUT, connect_table, session_cookie

PANEL_RE = re.compile(r'<div class="t-seat[ "][^>]*data-seat="(\d+)">')
PRESENCE_RE = re.compile(r'data-presence="(\w+)"')


def presence_in(html: str) -> dict[int, str]:
    """{seat: presence} of the seat panels in `html` (a panel without one left out)."""
    found = {}
    starts = list(PANEL_RE.finditer(html))
    for i, start in enumerate(starts):
        panel = html[start.end() : starts[i + 1].start() if i + 1 < len(starts) else len(html)]
        head = panel.split('<div class="t-seat-info">')[0]
        state = PRESENCE_RE.search(head)
        if state:
            found[int(start.group(1))] = state.group(1)
    return found


def two_seat_position():
    rules = engine.Rules(players=2)
    return engine.Game.from_layout(
        rules, hands=[["6S", "7S", "8H"], ["6H", "9S", "10S"]], stock=["8S", "9H", "10C"], attacker=0
    )


def rendered(snapshot, seat, viewer_id) -> str:
    with translation.override("ru"):
        context = presenters.table_context(snapshot, seat, [], viewer_id=viewer_id)
        return "".join(rendering.render_regions(rendering.decorated(context), rendering.region_names(context)).values())


def test_issue17_each_seat_shows_online_offline_or_left_to_everyone():
    snapshot = snapshot_for(two_seat_position())
    assert presence_in(rendered(snapshot, 0, 100)) == {0: "online", 1: "online"}
    snapshot["offline"] = {"101": "2026-01-01T10:00:00+00:00"}
    html = rendered(snapshot, 0, 100)
    assert presence_in(html) == {0: "online", 1: "offline"}
    assert "не в сети" in html
    # a spectator sees both seats, and the same
    assert presence_in(rendered(snapshot, None, None)) == {0: "online", 1: "offline"}
    snapshot["game"]["seats"][1]["autopilot"] = True
    html = rendered(snapshot, 0, 100)
    assert presence_in(html) == {0: "online", 1: "left"}
    assert ">вне игры<" in html  # he never said how to speak of him: no gender
    snapshot["addresses"] = {"101": "she"}
    assert ">вышла<" in rendered(snapshot, 0, 100)
    snapshot["addresses"] = {"101": "he"}
    assert ">вышел<" in rendered(snapshot, 0, 100)


def test_issue17_a_bots_seat_shows_no_presence():
    snapshot = snapshot_for(two_seat_position(), bot_levels={1: "heuristic"})
    assert presence_in(rendered(snapshot, 0, 100)) == {0: "online"}  # (and none at the bot's seat)


def test_issue17_presence_is_an_input_of_the_seat_panel_regions():
    """A live socket re-sends a seat region when (only) its player's presence changed."""
    position = two_seat_position()
    before = snapshot_for(position)
    view = rendering.LiveView("ru", "csrf")
    with translation.override("ru"):
        view.full(presenters.table_context(before, 0, [], viewer_id=100))
        after = {**before, "offline": {"101": "2026-01-01T10:00:00+00:00"}}
        shared = rendering.shared_regions_of(after, "ru", key="presence-shown-1")
        frame = view.update(presenters.table_context(after, 0, [], viewer_id=100, spectator=shared.context), shared)
    assert 'id="t-seats-top"' in frame and presence_in(frame) == {1: "offline"}


# ------------------------------------------------------------------ live, through the sockets


async def frame_where(communicator, seat: int, state: str) -> str:
    """The first frame that shows `seat` as `state` (fails after a few seconds)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + FRAME_TIMEOUT
    while True:
        frame = await communicator.receive_from(timeout=max(0.1, until - loop.time()))
        if presence_in(frame).get(seat) == state:
            return frame


@database_sync_to_async
def started_table(players):
    return table_services.do_create_table(rules=engine.Rules(players=2), seat_users=list(players), start=True)


@database_sync_to_async
def seat_of(table, user) -> int:
    game = Game.objects.filter(table=table).latest("number")
    return game.seats.get(user=user).number, game.pk


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_issue17_the_others_see_a_player_go_offline_come_back_and_leave():
    anna = await database_sync_to_async(support_games.make_user)("anna")
    boris = await database_sync_to_async(support_games.make_user)("boris")
    await database_sync_to_async(Profile.objects.filter(user=boris).update)(address="he")
    table = await started_table([anna, boris])
    boris_seat, game_id = await seat_of(table, boris)

    annas, first = await connect_table(table.pk, await session_cookie(anna))
    assert presence_in(first)[boris_seat] == "online"
    boriss, _first = await connect_table(table.pk, await session_cookie(boris))

    await boriss.disconnect()
    assert "не в сети" in await frame_where(annas, boris_seat, "offline")

    boriss, _first = await connect_table(table.pk, await session_cookie(boris))
    assert "в сети" in await frame_where(annas, boris_seat, "online")

    await database_sync_to_async(play.do_resign)(game_id=game_id, user=boris)
    # (the move's snapshot reads no profile: the socket keeps how each player is spoken of)
    assert ">вышел<" in await frame_where(annas, boris_seat, "left")
    await boriss.disconnect()
    await annas.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_issue17_a_move_keeps_showing_the_player_who_is_away_as_offline():
    """A move's snapshot does not read who is offline; the socket keeps the last it had."""
    anna = await database_sync_to_async(support_games.make_user)("anna")
    boris = await database_sync_to_async(support_games.make_user)("boris")
    table = await started_table([anna, boris])
    boris_seat, game_id = await seat_of(table, boris)
    annas, _first = await connect_table(table.pk, await session_cookie(anna))
    boriss, _first = await connect_table(table.pk, await session_cookie(boris))
    await boriss.disconnect()
    await frame_where(annas, boris_seat, "offline")

    await one_move(game_id, {anna.pk: anna, boris.pk: boris})
    frame = await annas.receive_from(timeout=FRAME_TIMEOUT)
    while 'data-moves="1"' not in frame:
        frame = await annas.receive_from(timeout=FRAME_TIMEOUT)
    assert presence_in(frame)[boris_seat] == "offline"  # (his panel changed: it was sent again)
    await annas.disconnect()


@database_sync_to_async
def one_move(game_id, users):
    """The move of whoever is to move first."""
    game = Game.objects.get(pk=game_id)
    position = position_of(game)
    seat = position.to_move()[0]
    user = users[game.seats.get(number=seat).user_id]
    play.do_player_move(game_id=game_id, user=user, action=support_games.human_choice(position, seat, game.move_count))


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_issue17_closing_a_second_tab_does_not_leave_him_offline():
    """The tab still open hears that its own player was marked offline and marks him back:
    nobody may claim the game against a player who is there."""
    anna = await database_sync_to_async(support_games.make_user)("anna")
    boris = await database_sync_to_async(support_games.make_user)("boris")
    table = await started_table([anna, boris])
    boris_seat, _game_id = await seat_of(table, boris)
    annas, _first = await connect_table(table.pk, await session_cookie(anna))
    cookie = await session_cookie(boris)
    first_tab, _first = await connect_table(table.pk, cookie)
    second_tab, _first = await connect_table(table.pk, cookie)
    await second_tab.disconnect()
    await frame_where(annas, boris_seat, "offline")
    await frame_where(annas, boris_seat, "online")

    @database_sync_to_async
    def offline_since():
        return TableSeat.objects.get(table=table, user=boris).offline_since

    assert await offline_since() is None
    await first_tab.disconnect()
    await annas.disconnect()
