"""Several server processes, one game (issue 11, item 3).

Two daphne processes on different ports share PostgreSQL and Redis, with Celery
workers and one beat; people reach the site only over HTTP and websockets, as
browsers do, each through the process it happens to talk to. What one process
does must reach the people on the other: the moves at a table, the lobby's
list, the result; and a turn timer (T7) that runs out is acted on exactly once,
however many workers and nudges see it.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime

import pytest
from websockets.asyncio.client import connect

from bench.loadtest import new_table
from tests.scale.players import FRAME_TIMEOUT, Person, Play, wait_until

pytestmark = [pytest.mark.asyncio]


def start_site(cluster, webs=("a", "b"), workers=("w1",)):
    urls = [cluster.start_web(name) for name in webs]
    for name in workers:
        cluster.start_worker(name)
    cluster.start_beat()
    for name in workers:
        cluster.wait_for_log(name, "ready")
    return urls


def assert_log_is(cluster, game_id: int, seen: dict):
    """The game's move log holds exactly the moves the people saw accepted, in their order."""
    log = cluster.moves(game_id)
    assert [number for number, *_ in log] == list(range(len(log))), "the log's numbers have a gap"
    assert {number: (seat, action) for number, seat, action, _ in log} == seen
    assert cluster.game_by_id(game_id)["move_count"] == len(log)


async def lobby_frames(url: str, frames: list, stop: asyncio.Event):
    origin = url
    async with connect(url.replace("http", "ws", 1) + "/ws/lobby/", origin=origin, proxy=None) as socket:
        while not stop.is_set():
            try:
                frames.append(await asyncio.wait_for(socket.recv(), 0.5))
            except TimeoutError:
                continue


async def test_people_on_two_processes_play_a_whole_game(cluster):
    a, b = await asyncio.to_thread(start_site, cluster)
    # An anonymous visitor watches the lobby through process B.
    lobby, stop = [], asyncio.Event()
    watching = asyncio.create_task(lobby_frames(b, lobby, stop))
    await asyncio.sleep(0.5)

    alice = await asyncio.to_thread(Person.new, a, 0)
    bob = await asyncio.to_thread(Person.new, b, 1)
    table_id = await asyncio.to_thread(new_table, alice.browser, 2)  # opened on A
    link = f"/table/{table_id}/"
    assert await asyncio.to_thread(wait_until, lambda: any(link in f for f in lobby), FRAME_TIMEOUT), (
        "the lobby on B never listed the table opened on A"
    )
    await asyncio.to_thread(bob.browser.post, f"/t/{table_id}/join/", {})  # B: the table is full and deals
    _, page = await asyncio.to_thread(alice.browser.get, link)  # A's page shows the deal made on B
    assert 'data-moves="0"' in page

    await alice.connect(table_id)
    await bob.connect(table_id)
    play = Play([alice, bob])
    try:
        made = await play.play()
    finally:
        await play.close()
        stop.set()
        await watching
    game = cluster.game(table_id)
    assert game["status"] == "finished" and made == game["move_count"] > 0
    assert alice.socket.over and bob.socket.over
    assert_log_is(cluster, game["id"], play.seen[game["id"]])
    _, page = await asyncio.to_thread(bob.browser.get, link)
    assert 'class="t-result"' in page


async def test_an_expired_turn_timer_is_acted_on_once(cluster):
    a, b = await asyncio.to_thread(start_site, cluster, workers=("w1", "w2"))
    # Signed-up people (no guest's table against a bot): this table's game is the only work.
    alice = await asyncio.to_thread(Person.new, a, 0, True)
    bob = await asyncio.to_thread(Person.new, b, 1, True)
    table_id = await asyncio.to_thread(new_table, alice.browser, 2, turn_seconds=15)
    await asyncio.to_thread(bob.browser.post, f"/t/{table_id}/join/", {})
    await alice.connect(table_id)
    await bob.connect(table_id)
    game = cluster.game(table_id)
    deadline = game["deadline"]
    assert deadline is not None and game["move_count"] == 0
    # Nobody moves. Due at the deadline: the site's own nudge, the beat's sweep every
    # second, and six more nudges held by the two workers (whichever took them).
    for _ in range(6):
        await asyncio.to_thread(cluster.send_task, "games.tasks.advance_game", [game["id"]], "podkidnoy", deadline)
    await asyncio.sleep(max(0.0, (deadline - datetime.now(UTC)).total_seconds()))
    for person in (alice, bob):
        assert await person.socket.wait_for(lambda p=person: p.socket.moves >= 1, FRAME_TIMEOUT)
    await asyncio.sleep(2.0)  # every nudge and a sweep or two have run by now
    log = cluster.moves(game["id"])
    assert [(number, source) for number, _, _, source in log] == [(0, "timeout")]
    assert cluster.game(table_id)["move_count"] == 1
    assert alice.socket.moves == bob.socket.moves == 1
    await Play([alice, bob]).close()
    # Both workers were asked; exactly one call, in one of them, made the move.
    logs = {name: cluster.log(name) for name in ("w1", "w2")}
    assert all("advance_game" in text for text in logs.values())
    acted = [line for text in logs.values() for line in text.splitlines() if re.search(r"succeeded in .*: 1$", line)]
    assert len(acted) == 1, acted
