"""Faults (issue 11, item 4): a server process or a worker dies with SIGKILL mid-game.

The database is the truth: a killed daphne loses only its sockets (its people
reconnect to the other process and play on from the database), and a killed
Celery worker loses only its place in the queue (the due bot move is made
again, by the next worker or the beat's sweep, and made once).
"""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime

import pytest

from bench.loadtest import new_table
from tests.scale.players import FRAME_TIMEOUT, Person, Play, answer_to, choose, wait_until
from tests.scale.test_processes import assert_log_is, start_site

pytestmark = [pytest.mark.asyncio]


async def test_a_killed_daphne_its_player_reconnects_to_the_other_and_plays_on(cluster):
    a, b = await asyncio.to_thread(start_site, cluster)
    alice = await asyncio.to_thread(Person.new, a, 0)
    bob = await asyncio.to_thread(Person.new, b, 1)
    table_id = await asyncio.to_thread(new_table, alice.browser, 2)
    await asyncio.to_thread(bob.browser.post, f"/t/{table_id}/join/", {})
    await alice.connect(table_id)
    await bob.connect(table_id)
    play = Play([alice, bob])
    try:
        assert await play.play(limit=12) == 12
        before = alice.socket.moves
        await asyncio.to_thread(cluster.kill, "a")  # alice's process dies mid-game
        assert await alice.socket.wait_for(lambda: alice.socket.closed, FRAME_TIMEOUT), (
            "a dead server's socket stays open"
        )
        # Her browser reconnects, through the other process, with the same session.
        await alice.connect(table_id, base=b)
        assert alice.socket.moves == bob.socket.moves == before
        made = await play.play()
    finally:
        await play.close()
    game = cluster.game(table_id)
    assert game["status"] == "finished" and game["move_count"] == 12 + made
    assert_log_is(cluster, game["id"], play.seen[game["id"]])


def due_and_not_made(cluster, table_id: int, moves: int):
    game = cluster.game(table_id)
    due = game["bot_due_at"]
    return game["move_count"] == moves and due is not None and due <= datetime.now(UTC)


async def test_a_worker_killed_while_a_bot_move_is_due_the_move_is_made_once(cluster):
    # The "hard" bot thinks about half a second: the worker is killed in the middle of
    # the bot's move (its transaction open, the game row locked) or just before it.
    (a,) = await asyncio.to_thread(start_site, cluster, webs=("a",))
    alice = await asyncio.to_thread(Person.new, a, 0, True)
    table_id = await asyncio.to_thread(new_table, alice.browser, 2, bot_level="hard")
    await asyncio.to_thread(alice.browser.post, f"/t/{table_id}/start/", {})
    socket = await alice.connect(table_id)
    rng = random.Random(3)
    accepted = []  # alice's moves the server accepted, in order
    killed_at = None
    try:
        while not socket.over:
            game = cluster.game(table_id)
            moves = game["move_count"]
            if killed_at is None and game["bot_due_at"] is not None:
                # Wait for the bot's time, then kill the worker that holds its task.
                assert await asyncio.to_thread(
                    wait_until, lambda m=moves: due_and_not_made(cluster, table_id, m), 10, 0.01
                )
                await asyncio.to_thread(cluster.kill, "w1")
                killed_at = moves
                assert len(cluster.moves(game["id"])) == moves, "the bot moved before the kill"
                cluster.start_worker("w2")
                # Alice waits (she might also have a move now, a throw-in): the bot's move,
                # due before the kill, must come from the new worker.
                assert await socket.wait_for(lambda m=moves: socket.moves > m, 40), "the due move never came"
                continue
            if socket.moves < moves:  # her page is a frame behind the database: catch up first
                assert await socket.wait_for(lambda m=moves: socket.moves >= m, FRAME_TIMEOUT), "a move never came"
                continue
            if socket.legal:
                action = choose(socket.legal, rng)
                if await answer_to(socket, action) == "":
                    accepted.append(action)
                else:
                    continue  # the bot moved first (both may throw in): look again
            assert await socket.wait_for(lambda m=moves: socket.moves > m or socket.over, 30), (
                "the game stalled",
                cluster.game(table_id),
                (socket.game, socket.moves, socket.legal, socket.over),
            )
    finally:
        await socket.close()
    assert killed_at is not None, "the bot never had a move due"
    game = cluster.game(table_id)
    log = cluster.moves(game["id"])
    assert game["status"] == "finished" and [n for n, *_ in log] == list(range(game["move_count"]))
    (killed_move,) = [row for row in log if row[0] == killed_at]
    assert killed_move[1] == 1 and killed_move[3] == "bot"  # the bot's seat, once
    assert [action for _, seat, action, source in log if seat == 0 and source == "player"] == accepted
    assert all(source == "player" for _, seat, _, source in log if seat == 0)
