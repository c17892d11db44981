"""After an outage nothing is missed: a lost notification is not the only way a seat learns of a move."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from games import engine, positions
from games.models import Game
from games.services import chat, notify, play
from games.services import tables as table_services
from tests.support import sockets
from tests.support.games import human_choice, latest_game, make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

LOG_RE = re.compile(r'<section id="table-log"[^>]*>(.*?)</section>', re.S)
CHAT_RE = re.compile(r'<ol id="chat-messages"[^>]*>(.*?)</ol>', re.S)


@database_sync_to_async
def new_game():
    """A dealt 2-player table: (table, {seat: user}, the seat to move first)."""
    users = [make_user("catchup-a"), make_user("catchup-b")]
    table = table_services.do_create_table(rules=engine.Rules(players=2), seat_users=users, start=True)
    position = positions.position_of(latest_game(table))
    return table, dict(enumerate(users)), position.to_move()[0]


@database_sync_to_async
def move(table_id: int, users: dict) -> int:
    """The seat to move plays what a person would; returns the new move count."""
    game = Game.objects.filter(table_id=table_id).order_by("-number").first()
    position = positions.position_of(game)
    seat = position.to_move()[0]
    play.do_player_move(
        game_id=game.pk, user=users[seat], action=human_choice(position, seat, game.move_count), expected_seat=seat
    )
    return game.move_count + 1


@database_sync_to_async
def page(table_id: int, user) -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/table/{table_id}/").content.decode()


@pytest.fixture
def lost_notifications(monkeypatch):
    """Every notification to a table fails (as when the channel layer is down), and is logged."""
    original = notify.send_to_group
    dropped = []

    def send_to_group(group, message):
        if message.get("type") in ("table.changed", "table.chat"):
            dropped.append(group)
            notify.log.error("could not notify %s", group)  # what send_to_group logs when a send fails
            return
        original(group, message)

    monkeypatch.setattr(notify, "send_to_group", send_to_group)
    return dropped


async def state_with_moves(communicator, moves: int, timeout: float = 5) -> str:
    for _ in range(20):
        frame = await communicator.receive_from(timeout=timeout)
        if sockets.moves_in(frame) == moves:
            return frame
    raise AssertionError(f"no state after {moves} moves")


def log_of(html: str) -> str:
    return LOG_RE.search(html).group(1)


async def test_a_seat_that_missed_a_notification_catches_up_by_itself(settings, lost_notifications):
    settings.TABLE_RESYNC_SECONDS = 0.3
    table, users, first = await new_game()
    watcher = users[1 - first]
    communicator, _ = await sockets.connect_table(table.pk, await sockets.session_cookie(watcher))
    try:
        moves = await move(table.pk, users)
        assert lost_notifications  # the move's notification never reached the socket
        frame = await state_with_moves(communicator, moves)
        assert log_of(frame) == log_of(await page(table.pk, watcher))  # the log of that move too
    finally:
        await communicator.disconnect()


async def test_a_refused_action_brings_the_missed_move(settings, lost_notifications):
    settings.TABLE_RESYNC_SECONDS = 0  # no periodic re-sync: only the refusal can tell
    table, users, first = await new_game()
    mover = users[first]
    communicator, _ = await sockets.connect_table(table.pk, await sockets.session_cookie(mover))
    try:
        moves = await move(table.pk, users)  # the mover's own move, made elsewhere (another tab)
        assert await communicator.receive_nothing(timeout=0.3)  # its notification was lost
        # The socket still shows the old position; acting on it is refused, and the state comes with the refusal.
        await communicator.send_to(text_data=sockets.frame(action="take"))
        frames = [await communicator.receive_from(timeout=5) for _ in range(2)]
        assert sockets.error_text(frames[0]) != ""
        assert sockets.moves_in(frames[1]) == moves
    finally:
        await communicator.disconnect()


async def test_a_reconnecting_socket_gets_the_state_log_and_chat_it_missed(settings):
    table, users, first = await new_game()
    watcher = users[1 - first]
    cookie = await sockets.session_cookie(watcher)
    communicator, _ = await sockets.connect_table(table.pk, cookie)
    await communicator.disconnect()  # the connection drops ...

    moves = await move(table.pk, users)  # ... meanwhile a move and a chat line
    await database_sync_to_async(chat.do_post_chat)(table_id=table.pk, user=users[first], text="пока вас не было")

    communicator, first_frame = await sockets.connect_table(table.pk, cookie)
    await communicator.disconnect()
    assert sockets.moves_in(first_frame) == moves
    full_page = await page(table.pk, watcher)
    assert log_of(first_frame) == log_of(full_page)
    chat_lines = CHAT_RE.search(first_frame).group(1)
    assert "пока вас не было" in chat_lines
    assert chat_lines.strip() == CHAT_RE.search(full_page).group(1).strip()


async def test_a_chat_line_whose_notification_was_lost_still_arrives(settings, lost_notifications):
    settings.TABLE_RESYNC_SECONDS = 0.3
    table, users, first = await new_game()
    communicator, _ = await sockets.connect_table(table.pk, await sockets.session_cookie(users[1 - first]))
    try:
        await database_sync_to_async(chat.do_post_chat)(table_id=table.pk, user=users[first], text="вы меня слышите?")
        assert lost_notifications
        frame = await communicator.receive_from(timeout=5)
        assert "вы меня слышите?" in CHAT_RE.search(frame).group(1)
        assert await communicator.receive_nothing(timeout=0.8)  # once, not again on every re-sync
    finally:
        await communicator.disconnect()
