"""The table's socket records that a seated player has come (issue 15, "What was seen" 3:
an event must tell a player who never came to his table from one who is thinking)."""

import pytest
from channels.db import database_sync_to_async

from games import engine
from games.models import TableSeat
from games.services import tables as table_services
from tests.support import games as support_games
from tests.support.sockets import connect_table, session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def seen(table_id):
    return dict(TableSeat.objects.filter(table_id=table_id).values_list("user__username", "seen_at"))


async def test_opening_the_table_marks_the_seat_seen_once():
    make_user = database_sync_to_async(support_games.make_user)
    alice, bob, carol = await make_user("alice"), await make_user("bob"), await make_user("carol")
    table = await database_sync_to_async(table_services.do_create_table)(
        rules=engine.Rules(players=2), seat_users=[alice, bob], start=True
    )
    assert await seen(table.pk) == {"alice": None, "bob": None}
    communicator, _first = await connect_table(table.pk, await session_cookie(alice))
    await communicator.disconnect()
    first = (await seen(table.pk))["alice"]
    assert first is not None and (await seen(table.pk))["bob"] is None
    # A spectator changes nothing; a second connect keeps the first time.
    watcher, _ = await connect_table(table.pk, await session_cookie(carol))
    await watcher.disconnect()
    again, _ = await connect_table(table.pk, await session_cookie(alice))
    await again.disconnect()
    assert await seen(table.pk) == {"alice": first, "bob": None}
