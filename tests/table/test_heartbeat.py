"""A phone that loses its network keeps its socket open on paper: its frames wait in the
phone and the server hears nothing. The page beats (games.table.heartbeat); a socket
that has beaten and then falls silent counts as its player gone, as when he closes the
tab: his seat is marked offline, the table is told, and a turn that runs out meanwhile
gives him the one grace wait a game allows before the timeout counts."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.db import database_sync_to_async

from games import positions
from games.models import TableSeat
from games.services import play
from games.table import heartbeat
from tests.support import games as support_games
from tests.support.sockets import FRAME_TIMEOUT, connect_table, error_text, session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

BEAT = 0.05  # seconds: the silence limit is four of them
WAIT_FOR_MARK = 10.0  # seconds at most for the server to act on the silence (a busy machine)


@pytest.fixture
def quick_beats(settings):
    settings.TABLE_HEARTBEAT_SECONDS = BEAT


@database_sync_to_async
def timed_duel():
    """A game of two with a 30 s turn timer: (table, game, users by seat, the seat to move)."""
    anna, boris = support_games.make_user("anna"), support_games.make_user("boris")
    table = support_games.new_table(support_games.two_player_rules(), [anna, boris], turn_seconds=30)
    game = support_games.latest_game(table)
    users = {seat.number: seat.user for seat in support_games.seat_map(game).values()}
    (opener,) = positions.position_of(game).to_move()
    return table, game, users, opener


@database_sync_to_async
def offline_since(table_id, user):
    return TableSeat.objects.get(table_id=table_id, user=user).offline_since


async def until_offline(table_id, user):
    for _ in range(int(WAIT_FOR_MARK / BEAT)):
        if await offline_since(table_id, user) is not None:
            return True
        await asyncio.sleep(BEAT)
    return False


async def beat(communicator, value="here"):
    await communicator.send_to(text_data=json.dumps({"heartbeat": value}))
    return await communicator.receive_from(timeout=FRAME_TIMEOUT)


async def test_a_heartbeat_is_answered_by_a_frame_that_changes_nothing(quick_beats):
    table, _game, users, opener = await timed_duel()
    communicator, _first = await connect_table(table.pk, await session_cookie(users[opener]))
    assert await beat(communicator) == heartbeat.ANSWER
    assert await beat(communicator, "away") == heartbeat.ANSWER
    assert await offline_since(table.pk, users[opener]) is None
    await communicator.disconnect()


async def test_a_heartbeat_that_is_not_here_or_away_is_refused_and_changes_nothing(quick_beats):
    table, _game, users, opener = await timed_duel()
    communicator, _first = await connect_table(table.pk, await session_cookie(users[opener]), language="ru")
    await communicator.send_to(text_data=json.dumps({"heartbeat": "maybe"}))
    frame = await communicator.receive_from(timeout=FRAME_TIMEOUT)
    assert error_text(frame) == "Неверное сообщение: пульс бывает «here» или «away»."
    await communicator.disconnect()


async def test_a_socket_that_stops_answering_the_heartbeat_is_offline_and_its_player_gets_the_grace_wait(quick_beats):
    table, game, users, opener = await timed_duel()
    other = users[1 - opener]
    watcher, _first = await connect_table(table.pk, await session_cookie(other), language="ru")
    communicator, _first = await connect_table(table.pk, await session_cookie(users[opener]))
    assert await beat(communicator) == heartbeat.ANSWER

    # Nothing more from the phone: the server marks him gone and closes the socket.
    assert await until_offline(table.pk, users[opener]), "a silent socket was never marked offline"
    closed = await communicator.receive_output(timeout=FRAME_TIMEOUT)
    assert closed == {"type": "websocket.close", "code": heartbeat.SILENT_CLOSE_CODE}
    await communicator.disconnect()
    # The other player is told: his seat reads «не в сети».
    for _ in range(10):
        frame = await watcher.receive_from(timeout=FRAME_TIMEOUT)
        if 'data-presence="offline"' in frame:
            break
    else:
        raise AssertionError("the other player was never shown him offline")
    assert "не в сети" in frame
    await watcher.disconnect()

    # His turn runs out while he is away: the one grace wait, not «Время вышло».
    advanced = await database_sync_to_async(play.do_advance_game)(game_id=game.pk, now=game.deadline)
    assert advanced == 0
    fresh = await database_sync_to_async(support_games.fresh)(game)
    assert fresh.deadline > game.deadline
    seats = await database_sync_to_async(support_games.seat_map)(game)
    assert seats[opener].grace_used and seats[opener].timeouts_in_row == 0
    assert await database_sync_to_async(support_games.moves)(game) == []


async def test_a_socket_that_never_beats_is_never_timed(quick_beats):
    """(a script or an older page: only a page that speaks the heartbeat is held to it)"""
    table, _game, users, opener = await timed_duel()
    communicator, _first = await connect_table(table.pk, await session_cookie(users[opener]))
    await asyncio.sleep(heartbeat.silence_limit(False) * 3)
    assert await offline_since(table.pk, users[opener]) is None
    assert await communicator.receive_nothing(timeout=BEAT)
    await communicator.disconnect()


async def test_a_hidden_tab_beating_slowly_is_not_counted_gone(quick_beats):
    table, _game, users, opener = await timed_duel()
    communicator, _first = await connect_table(table.pk, await session_cookie(users[opener]))
    assert await beat(communicator, "away") == heartbeat.ANSWER
    await asyncio.sleep(heartbeat.silence_limit(False) * 3)
    assert await offline_since(table.pk, users[opener]) is None
    await communicator.disconnect()
