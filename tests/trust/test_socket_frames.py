"""Whatever a browser sends, the socket answers and stays open, and nothing changes that should not.

Generated frames (hypothesis, a bounded number of examples) are fired at live
consumers over the real ASGI application: the table (a seated player with no
legal move, and a spectator), the lobby and the tournaments' sockets.
"""

from __future__ import annotations

import itertools
import json
import logging

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import engine
from games.models import ChatMessage, Game
from games.services import tables as table_services
from tests.support import sockets
from tests.support.games import latest_game, make_user
from tests.tournaments.helpers import make_event

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

CRASHERS = [
    "[" * 2000 + "]" * 2000,  # RecursionError in the JSON parser
    '{"a":' * 1500 + "1" + "}" * 1500,
    json.dumps({"chat": "\ud800\udc00\ud800"}),  # lone surrogates: no database stores them
    json.dumps({"action": "attack \ud800"}),
    json.dumps({"chat": "nul \x00 byte"}),
    json.dumps({"seat": [[[[0]]]], "action": "take"}),
    json.dumps({"table": {"id": 1}, "action": "take"}),
    json.dumps({"game": ["x"], "action": "take"}),
    json.dumps({"seat": True, "action": "take"}),
    json.dumps({"action": "take", "seat": "1" * 5000}),
    json.dumps({"chat": ["not", "text"]}),
    json.dumps({"action": None}),
    "null",
    "",
    " ",
]

any_text = st.text(alphabet=st.characters(exclude_categories=()), max_size=40)  # surrogates included
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | any_text
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_text, inner, max_size=3), max_leaves=12
)
frame_dicts = st.fixed_dictionaries(
    {},
    optional={
        "action": json_values | st.sampled_from(["take", "pass", "attack 6S", "defend 6S with 7S", "attack"]),
        "chat": json_values,
        "seat": json_values | st.sampled_from(["0", "1", "-1", " 1 "]),
        "table": json_values,
        "game": json_values,
        "HEADERS": json_values,
    },
)
frames = st.one_of(
    st.sampled_from(CRASHERS),
    any_text,
    json_values.map(json.dumps),
    frame_dicts.map(json.dumps),
    st.integers(min_value=1, max_value=4000).map(lambda n: "[" * n + "]" * n),
    st.binary(min_size=1, max_size=30),
)
FRAME_LISTS = st.lists(frames, min_size=1, max_size=5)
SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@database_sync_to_async
def table_with_a_waiting_player(users):
    """A dealt 2-player table; returns (table, the user whose seat has no legal action now)."""
    table = table_services.do_create_table(rules=engine.Rules(players=2), seat_users=list(users), start=True)
    position = engine.Game.from_json(latest_game(table).state_json)
    waiting = next(seat for seat in range(2) if not position.legal_actions(seat))
    return table, users[waiting]


@database_sync_to_async
def table_facts(table_id: int):
    game = Game.objects.filter(table_id=table_id).order_by("-number").first()
    return game.move_count, game.state_json, ChatMessage.objects.filter(table_id=table_id).count()


async def send(communicator, frame) -> None:
    if isinstance(frame, bytes):
        await communicator.send_to(bytes_data=frame)
    else:
        await communicator.send_input({"type": "websocket.receive", "text": frame})  # "" included


async def answer(communicator) -> str:
    """The refusal (or "" for accepted) the socket sends for a frame; other frames (chat lines) skipped."""
    for _ in range(10):
        output = await communicator.receive_output(timeout=sockets.FRAME_TIMEOUT)
        assert output["type"] == "websocket.send", f"the socket was closed: {output}"
        if 'id="table-error"' in output.get("text", ""):
            return sockets.error_text(output["text"])
    raise AssertionError("no answer to the frame")


def no_crash_logged(caplog) -> None:
    crashes = [r for r in caplog.records if r.name.startswith("games.table") and r.levelno >= logging.ERROR]
    assert crashes == []


_names = itertools.count()


@database_sync_to_async
def two_new_players():
    n = next(_names)
    return [make_user(f"frames-a{n}"), make_user(f"frames-b{n}")]


@SETTINGS
@given(sent=FRAME_LISTS)
async def test_a_seated_player_gets_an_answer_to_every_frame_and_nothing_changes(caplog, sent):
    table, player = await table_with_a_waiting_player(await two_new_players())
    moves, state, chats = await table_facts(table.pk)
    communicator, _first = await sockets.connect_table(table.pk, await sockets.session_cookie(player))
    accepted_chats = 0
    try:
        for frame in sent:
            await send(communicator, frame)
            refusal = await answer(communicator)
            if refusal == "":
                data = json.loads(frame)
                assert isinstance(data.get("chat"), str), f"accepted a frame that is no chat line: {frame!r}"
                accepted_chats += 1
        while not await communicator.receive_nothing(timeout=0.1):  # (the accepted lines coming back)
            output = await communicator.receive_output(timeout=1)
            assert output["type"] == "websocket.send" and "chat-messages" in output["text"], output
    finally:
        await communicator.disconnect()
    assert await table_facts(table.pk) == (moves, state, chats + accepted_chats)
    no_crash_logged(caplog)


@SETTINGS
@given(sent=FRAME_LISTS)
async def test_a_spectator_gets_an_answer_to_every_frame_and_nothing_changes(caplog, sent):
    table, _player = await table_with_a_waiting_player(await two_new_players())
    before = await table_facts(table.pk)
    communicator, _first = await sockets.connect_table(table.pk)
    try:
        for frame in sent:
            await send(communicator, frame)
            assert await answer(communicator) != ""  # a spectator can do nothing: always a refusal
    finally:
        await communicator.disconnect()
    assert await table_facts(table.pk) == before
    no_crash_logged(caplog)


async def stays_open(path: str, sent, cookie=None) -> None:
    """A listening socket ignores every frame and stays open."""
    communicator, accepted = await sockets.connect(path, cookie)
    assert accepted
    try:
        while not await communicator.receive_nothing(timeout=0.2):
            await communicator.receive_output(timeout=1)  # its first frames
        for frame in sent:
            await send(communicator, frame)
        assert await communicator.receive_nothing(timeout=0.05)
        return communicator
    except BaseException:
        await communicator.disconnect()
        raise


@SETTINGS
@given(sent=FRAME_LISTS)
async def test_the_lobby_socket_ignores_every_frame_and_stays_open(sent):
    communicator = await stays_open("/ws/lobby/", sent)
    try:
        # A change it must show (a lobby socket whose list did not change is sent nothing).
        host = (await two_new_players())[0]
        await database_sync_to_async(table_services.do_create_table)(rules=engine.Rules(players=2), host=host)
        await get_channel_layer().group_send("lobby", {"type": "lobby.changed"})
        frame = await communicator.receive_from(timeout=sockets.FRAME_TIMEOUT)  # still listening
        assert "lobby" in frame
    finally:
        await communicator.disconnect()


@SETTINGS
@given(sent=FRAME_LISTS)
async def test_the_tournament_sockets_ignore_every_frame_and_stay_open(sent):
    cookie = await sockets.session_cookie((await two_new_players())[0])
    event = await database_sync_to_async(make_event)()
    for path, who in (("/ws/tournaments/me/", cookie), (f"/ws/tournaments/{event.pk}/", None)):
        communicator = await stays_open(path, sent, who)
        await communicator.disconnect()
