"""Issue 17, "fair clocks": the table's socket tells the clock whether a seated player is
there. Closing his socket marks his seat offline (so his one grace wait can apply, see
games.services.clock); opening it again marks him back online. A spectator's socket marks
nothing."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games import engine
from games.models import TableSeat
from games.services import tables as table_services
from tests.support import games as support_games
from tests.support.sockets import connect_table, session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def started_table(players):
    return table_services.do_create_table(rules=engine.Rules(players=2), seat_users=list(players), start=True)


@database_sync_to_async
def offline_since(table_id, user):
    return TableSeat.objects.get(table_id=table_id, user=user).offline_since


async def test_issue17_closing_the_socket_marks_the_seat_offline_and_reconnecting_online():
    anna = await database_sync_to_async(support_games.make_user)("anna")
    boris = await database_sync_to_async(support_games.make_user)("boris")
    table = await started_table([anna, boris])
    cookie = await session_cookie(anna)

    communicator, _first = await connect_table(table.pk, cookie)
    assert await offline_since(table.pk, anna) is None
    await communicator.disconnect()
    assert await offline_since(table.pk, anna) is not None
    assert await offline_since(table.pk, boris) is None  # only the one who left

    communicator, _first = await connect_table(table.pk, cookie)
    assert await offline_since(table.pk, anna) is None
    await communicator.disconnect()


async def test_issue17_a_spectator_leaving_marks_no_seat():
    anna = await database_sync_to_async(support_games.make_user)("anna")
    boris = await database_sync_to_async(support_games.make_user)("boris")
    watcher = await database_sync_to_async(support_games.make_user)("vera")
    table = await started_table([anna, boris])

    communicator, _first = await connect_table(table.pk, await session_cookie(watcher))
    await communicator.disconnect()
    assert await offline_since(table.pk, anna) is None
    assert await offline_since(table.pk, boris) is None
