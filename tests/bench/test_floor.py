"""The framework floor of `bench_tables` (bench.floor), in-process: an action
costs one counted transaction and reaches every seat of its table, in a frame the
benchmark's client reads as it reads the site's."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection

from bench import floor
from bench.tables import STATE_RE

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 5


@database_sync_to_async
def start_counting_afresh():
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {floor.COUNTER_TABLE}")


@database_sync_to_async
def counter_rows() -> list:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT table_id, moves FROM {floor.COUNTER_TABLE} ORDER BY table_id")
        return [tuple(row) for row in cursor.fetchall()]


async def seat_at(table_id: int) -> tuple[WebsocketCommunicator, str]:
    communicator = WebsocketCommunicator(floor.application, f"/ws/floor/{table_id}/")
    accepted, _ = await communicator.connect(timeout=TIMEOUT)
    assert accepted
    return communicator, await communicator.receive_from(timeout=TIMEOUT)


def shown(frame: str) -> tuple[int, int]:
    """(game, moves) as the benchmark's client reads them from a frame."""
    found = STATE_RE.search(frame.encode())
    assert found, frame
    return int(found.group(1)), int(found.group(2))


@pytest.mark.parametrize("size", [8192, 0])
async def test_one_action_is_one_counted_move_shown_to_every_seat_of_its_table(monkeypatch, size):
    monkeypatch.setenv(floor.FRAME_BYTES_ENV, str(size))
    await start_counting_afresh()
    (first, first_frame), (second, second_frame) = [await seat_at(7), await seat_at(7)]
    elsewhere, elsewhere_frame = await seat_at(8)
    assert shown(first_frame) == shown(second_frame) == (7, 0)
    assert shown(elsewhere_frame) == (8, 0)

    await second.send_json_to({"action": "floor"})

    for seat in (first, second):
        frame = await seat.receive_from(timeout=TIMEOUT)
        assert shown(frame) == (7, 1)
        assert 'hx-swap-oob="true"' in frame
        if size:
            assert len(frame.encode()) == size
        else:
            assert frame == '<section id="table-state" data-game="7" data-moves="1" hx-swap-oob="true"></section>'
    assert await counter_rows() == [(7, 1)]
    assert await elsewhere.receive_nothing(timeout=0.2)
    assert await first.receive_nothing(timeout=0.2)  # one frame per action, no answer besides

    for seat in (first, second, elsewhere):
        await seat.disconnect()


async def test_a_frame_without_an_action_changes_nothing():
    await start_counting_afresh()
    seat, _ = await seat_at(3)
    await seat.send_json_to({"chat": "hello"})
    await seat.send_to(text_data="not json")
    assert await seat.receive_nothing(timeout=0.2)
    assert await counter_rows() == []
    await seat.disconnect()
