"""The live table over the real ASGI application (channels' WebsocketCommunicator)."""

from __future__ import annotations

import json
import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from durak_site.asgi import application
from games import bots, engine
from games.models import ChatMessage, Game, Table
from games.services import tables as table_services
from tests.support import games as support_games
from tests.support import sockets
from tests.support.snapshots import card_codes, event_cards, visible_now
from tests.support.sockets import MOVES_RE, error_text, session_cookie
from tests.support.sockets import connect_table as connected

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

# ------------------------------------------------------------------ helpers


make_user = database_sync_to_async(support_games.make_user)


@database_sync_to_async
def anonymous_invited_cookie(table_id: int) -> str:
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session["invited_tables"] = [table_id]
    session.save()
    return session.session_key


@database_sync_to_async
def open_table(users, rules=None, **options) -> Table:
    return table_services.do_create_table(
        rules=rules or engine.Rules(players=len(users)), seat_users=list(users), start=True, **options
    )


@database_sync_to_async
def current_game(table_id: int) -> Game:
    return Game.objects.filter(table_id=table_id).order_by("-number").first()


@database_sync_to_async
def get_page(cookie: str | None, table_id: int, language: str = "ru"):
    client = Client(headers={"accept-language": language})
    if cookie:
        client.cookies["sessionid"] = cookie
    return client.get(f"/table/{table_id}/")


async def connect(table_id: int, cookie: str | None = None, language: str | None = None, origin=sockets.ORIGIN):
    return await sockets.connect(f"/ws/table/{table_id}/", cookie, language, origin)


async def next_frame(communicator) -> str:
    # (frames `error_frame` returned that also show a state: an accepted action's answer
    # rides on the frame of its move, which `frame_with_moves` then reads again)
    held = getattr(communicator, "held_frames", None)
    if held:
        return held.pop(0)
    return await communicator.receive_from(timeout=5)


async def frame_with_moves(communicator, move_count: int, seen: list | None = None) -> str:
    """Receive frames until the state after `move_count` moves arrives (keep them all in `seen`)."""
    for _ in range(20):
        frame = await next_frame(communicator)
        if seen is not None:
            seen.append(frame)
        match = MOVES_RE.search(frame)
        if match and match.group(1) and int(match.group(1)) >= move_count:
            return frame
    raise AssertionError(f"no state after {move_count} moves")


async def error_frame(communicator) -> str:
    """The next frame with the error area (chat lines and states before it are skipped)."""
    for _ in range(20):
        frame = await next_frame(communicator)
        if 'id="table-error"' in frame:
            if MOVES_RE.search(frame):
                communicator.held_frames = [*getattr(communicator, "held_frames", []), frame]
            return frame
    raise AssertionError("no error frame")


def send(communicator, **fields):
    return communicator.send_to(text_data=sockets.frame(**fields))


# ------------------------------------------------------------------ tests


async def test_a_seat_gets_its_own_fragment_on_connect():
    alice, bob = await make_user("alice"), await make_user("bob")
    table = await open_table([alice, bob])
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)
    communicator, first = await connected(table.pk, await session_cookie(alice))
    try:
        assert 'id="table-log"' in first
        assert 'data-seat="0"' in first
        hand = set(position.hand(0))
        shown = set(re.findall(r'<button type="button" class="t-card[^"]*" data-card="([^"]+)"', first))
        assert shown == hand
        assert not card_codes(first) & set(position.hand(1)) - visible_now(position, 0)
        assert "Ходы" in first  # Russian by default
    finally:
        await communicator.disconnect()


@pytest.mark.parametrize(
    "rules",
    [
        engine.Rules(players=2),
        engine.Rules(variant="perevodnoy", players=3),
        engine.Rules(variant="perevodnoy", players=4, partners=True, trump_six_swap=True),
    ],
    ids=["podkidnoy-2", "perevodnoy-3", "perevodnoy-partners"],
)
async def test_whole_game_over_sockets_never_leaks_a_hidden_card(rules):
    users = [await make_user(f"p{i}") for i in range(rules.players)]
    table = await open_table(users, rules)
    cookies = [await session_cookie(u) for u in users]
    sockets, frames, allowed = [], [], []
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)
    for seat, cookie in enumerate(cookies):
        communicator, first = await connected(table.pk, cookie)
        sockets.append(communicator)
        frames.append([first])
        allowed.append(visible_now(position, seat))
    spectator, first = await connected(table.pk)  # anonymous: the public view
    sockets.append(spectator)
    frames.append([first])
    allowed.append(visible_now(position, None))
    seats = list(range(rules.players)) + [None]
    try:
        for seat in seats:
            leaked = card_codes(frames[seats.index(seat)][0]) - allowed[seats.index(seat)]
            assert not leaked, f"seat {seat} saw {leaked} on connect"
        moves = 0
        last = [""] * len(seats)
        while not position.is_over:
            assert moves < 600, "the game does not end"
            mover = position.to_move()[0]
            choice = bots.get_bot("heuristic", seed=moves).choose(position.view(mover))
            assert choice in position.legal_actions(mover)
            events = position.copy().act(mover, choice)
            await send(sockets[mover], action=choice, seat=str(mover), table=str(table.pk), game=str(game.pk))
            assert error_text(await error_frame(sockets[mover])) == ""
            moves += 1
            game = await current_game(table.pk)
            assert game.move_count == moves
            position = engine.Game.from_json(game.state_json)
            for index, seat in enumerate(seats):
                allowed[index] |= visible_now(position, seat) | event_cards(events, seat)
                received = []
                last[index] = await frame_with_moves(sockets[index], moves, received)
                for frame in received:
                    leaked = card_codes(frame) - allowed[index]
                    assert not leaked, f"seat {seat} was sent {leaked} after move {moves} ({choice})"
        # Every socket saw the result; pages served to each seat leak nothing either.
        assert all('class="t-result"' in frame for frame in last)
        for seat, cookie in enumerate(cookies):
            page = (await get_page(cookie, table.pk)).content.decode()
            assert not card_codes(page) - allowed[seat]
            assert "Игра окончена" in page
        page = (await get_page(None, table.pk)).content.decode()
        assert not card_codes(page) - allowed[-1]
    finally:
        for communicator in sockets:
            await communicator.disconnect()
    final = await current_game(table.pk)
    assert final.status == Game.Status.FINISHED and final.result


async def test_pages_mid_game_show_only_the_viewers_cards():
    alice, bob, carol = await make_user("alice"), await make_user("bob"), await make_user("carol")
    table = await open_table([alice, bob])
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)
    for user, seat in ((alice, 0), (bob, 1), (carol, None)):
        response = await get_page(await session_cookie(user), table.pk)
        assert response.status_code == 200
        page = response.content.decode()
        assert 'hx-ext="ws"' in page and f'ws-connect="/ws/table/{table.pk}/"' in page
        assert not card_codes(page) - visible_now(position, seat)
        if seat is not None:
            assert set(position.hand(seat)) <= card_codes(page)
    page = (await get_page(None, table.pk, "en")).content.decode()
    assert "watching" in page and not card_codes(page) - visible_now(position, None)


async def test_bad_frames_are_refused_and_change_nothing():
    alice, bob, carol = await make_user("alice"), await make_user("bob"), await make_user("carol")
    table = await open_table([alice, bob])
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)
    attacker = position.to_move()[0]
    owner = [alice, bob][attacker]
    card = position.hand(attacker)[0]
    communicator, _ = await connected(table.pk, await session_cookie(owner), language="en")
    try:
        bad = [
            ("not json at all", "not JSON"),
            ("[1, 2]", "expected a JSON object"),
            (json.dumps({"HEADERS": {}}), "has no action"),
            (json.dumps({"action": 7}), "Malformed action"),
            (json.dumps({"action": ""}), "Malformed action"),
            (json.dumps({"action": f"attack {card}", "seat": str(1 - attacker)}), "That seat is not yours"),
            (json.dumps({"action": f"attack {card}", "seat": "x"}), "the seat is a number"),
            (json.dumps({"action": f"attack {card}", "table": str(table.pk + 1000)}), "another table"),
            (json.dumps({"action": f"attack {card}", "game": str(game.pk + 1000)}), "another game"),
            (json.dumps({"action": "x" * 100}), "Malformed action"),
            ("{" * 5000, "too long"),
        ]
        for text, reason in bad:
            await communicator.send_to(text_data=text)
            frame = await error_frame(communicator)
            assert reason in error_text(frame), (text[:40], error_text(frame))
            assert 'hx-swap-oob="true"' in frame
        await communicator.send_to(bytes_data=b"\x00\x01")
        assert "JSON text frame" in error_text(await error_frame(communicator))
        assert (await current_game(table.pk)).move_count == 0
        # The connection was kept: a good move still goes through.
        await send(communicator, action=f"attack {card}", seat=str(attacker), table=str(table.pk))
        assert error_text(await error_frame(communicator)) == ""
        await frame_with_moves(communicator, 1)
        assert (await current_game(table.pk)).move_count == 1
    finally:
        await communicator.disconnect()

    # A socket that is not logged in watches, and may not move.
    anonymous, _ = await connected(table.pk, language="en")
    try:
        await send(anonymous, action="take")
        assert "Sign in to play" in error_text(await error_frame(anonymous))
    finally:
        await anonymous.disconnect()
    # A signed-in spectator may not move either.
    watcher, _ = await connected(table.pk, await session_cookie(carol), language="en")
    try:
        await send(watcher, action="take")
        assert "only its players move" in error_text(await error_frame(watcher))
    finally:
        await watcher.disconnect()
    assert (await current_game(table.pk)).move_count == 1


async def test_a_foreign_origin_is_refused_at_the_handshake():
    alice, bob = await make_user("alice"), await make_user("bob")
    table = await open_table([alice, bob])
    communicator, ok = await connect(table.pk, await session_cookie(alice), origin=(b"origin", b"http://evil.example"))
    assert not ok
    communicator, ok = await connect(table.pk, await session_cookie(alice), origin=(b"x-none", b""))
    assert not ok  # no Origin at all


async def test_an_illegal_move_shows_the_engines_reason():
    alice, bob = await make_user("alice"), await make_user("bob")
    table = await open_table([alice, bob])
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)
    attacker = position.to_move()[0]
    other = 1 - attacker
    not_mine = position.hand(other)[0]
    users = [alice, bob]
    me, _ = await connected(table.pk, await session_cookie(users[attacker]), language="en")
    them, _ = await connected(table.pk, await session_cookie(users[other]), language="en")
    try:
        await send(me, action=f"attack {not_mine}")
        shown = not_mine[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[not_mine[-1]]
        assert error_text(await error_frame(me)) == f"You do not hold {shown}."
        mine = position.hand(other)[1]
        await send(them, action=f"attack {mine}")
        reason = error_text(await error_frame(them))
        assert "Only the attacker" in reason
        await send(me, action="fly away")
        assert "Malformed action" in error_text(await error_frame(me))
        assert (await current_game(table.pk)).move_count == 0
        await me.receive_nothing(timeout=0.2)
        await them.receive_nothing(timeout=0.2)
    finally:
        await me.disconnect()
        await them.disconnect()


async def test_chat_is_escaped_limited_and_rate_limited():
    alice, bob = await make_user("alice"), await make_user("bob")
    table = await open_table([alice, bob])
    a, _ = await connected(table.pk, await session_cookie(alice), language="en")
    b, _ = await connected(table.pk, await session_cookie(bob), language="en")
    anonymous, _ = await connected(table.pk, language="en")
    try:
        await send(a, chat="<script>alert(1)</script> & hi")
        assert error_text(await error_frame(a)) == ""
        for communicator in (a, b, anonymous):
            frame = await communicator.receive_from(timeout=5)
            assert 'id="chat-messages" hx-swap-oob="beforeend"' in frame
            assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; hi" in frame
            assert "<script>" not in frame
            assert "alice" in frame
        await send(a, chat="x" * 301)
        assert "at most 300" in error_text(await error_frame(a))
        await send(a, chat="   ")
        assert "empty" in error_text(await error_frame(a))
        await send(a, chat=["list"])
        assert "text" in error_text(await error_frame(a))
        await send(anonymous, chat="hello")
        assert "Sign in to chat" in error_text(await error_frame(anonymous))
        for i in range(4):
            await send(a, chat=f"message {i}")
            assert error_text(await error_frame(a)) == ""
            await a.receive_from(timeout=5)
        await send(a, chat="one too many")
        assert "too fast" in error_text(await error_frame(a))
        # Others are not limited by alice's rate.
        await send(b, chat="bob here")
        assert error_text(await error_frame(b)) == ""
        assert await database_sync_to_async(ChatMessage.objects.filter(user=alice).count)() == 5
        # The page shows the history, escaped.
        page = (await get_page(await session_cookie(bob), table.pk)).content.decode()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    finally:
        for communicator in (a, b, anonymous):
            await communicator.disconnect()


async def test_a_refusal_after_an_accepted_move_stays_shown():
    """The accepted move's (empty) answer rides on its state frame; a refusal of the next
    frame, sent before that state arrives, must not be cleared by it."""
    alice, bob = await make_user("alice"), await make_user("bob")
    table = await open_table([alice, bob])
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)
    mover = position.to_move()[0]
    cookie = await session_cookie([alice, bob][mover])
    communicator, _first = await connected(table.pk, cookie, "en")
    try:
        await send(communicator, action=bots.get_bot("heuristic", seed=1).choose(position.view(mover)))
        await send(communicator, action="!")  # refused at once, whatever the order of what follows
        frames = []
        await frame_with_moves(communicator, 1, frames)
        while not any("Malformed action" in f for f in frames):
            frames.append(await communicator.receive_from(timeout=5))
        shown = [error_text(f) for f in frames if 'id="table-error"' in f]
        assert shown and "Malformed action" in shown[-1], shown
        assert await communicator.receive_nothing(timeout=1.5)  # no late answer clears it
    finally:
        await communicator.disconnect()


async def test_an_answer_sent_after_an_accepted_move_is_not_overwritten_by_its_ride():
    """Whatever the order the server meets them in: once a refusal went out after an
    accepted action, the state frame of that action carries no (empty) answer."""
    from games.table.consumers import TableConsumer

    consumer = TableConsumer()
    consumer.language = "en"
    consumer.answer_for = consumer.answer_timer = None
    sent = []

    async def record(text_data=None, **kwargs):
        sent.append(text_data)

    consumer.send = record
    consumer._answer_with_state(7, 3)  # move 3 of game 7 accepted: its answer waits for its frame
    assert consumer._answer_due(7, 2) == ""  # an older state: not yet
    await consumer._error("You do not hold 6S.")  # the next frame refused
    assert consumer._answer_due(7, 3) == ""  # the move's frame must not clear that refusal
    assert "You do not hold 6S." in sent[-1]
    consumer._answer_with_state(7, 4)
    assert 'id="table-error"' in consumer._answer_due(7, 4)  # normally the move's frame answers


async def test_a_socket_asks_other_apps_what_they_show_off_the_event_loop(monkeypatch):
    """What other apps show at the table (games.extensions: the ratings, the chances) may
    query: a socket asks their providers in a worker thread, never on the event loop, on
    connect and once per change and process (the first socket of the group)."""
    import asyncio

    from games import extensions

    heard = []

    def notes(table, game):
        try:
            asyncio.get_running_loop()
            on_the_loop = True
        except RuntimeError:
            on_the_loop = False
        heard.append((game["move_count"], on_the_loop))
        return []

    monkeypatch.setattr(extensions, "_game_notes", [*extensions._game_notes, notes])
    alice, bob = await make_user("alice"), await make_user("bob")
    table = await open_table([alice, bob])
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)
    sockets_ = [(await connected(table.pk, await session_cookie(u), "en"))[0] for u in (alice, bob)]
    assert heard == [(0, False), (0, False)]  # each socket's whole fragment on connect
    mover = position.to_move()[0]
    await send(sockets_[mover], action=bots.get_bot("heuristic", seed=1).choose(position.view(mover)))
    for communicator in sockets_:
        await frame_with_moves(communicator, 1)
    assert heard == [(0, False), (0, False), (1, False)]  # the move: asked once for both sockets
    for communicator in sockets_:
        await communicator.disconnect()


async def test_a_reconnecting_socket_gets_the_full_state_and_log():
    alice, bob = await make_user("alice"), await make_user("bob")
    table = await open_table([alice, bob])
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)
    cookies = [await session_cookie(alice), await session_cookie(bob)]
    sockets = [(await connected(table.pk, c, "en"))[0] for c in cookies]
    for moves in range(1, 4):
        mover = position.to_move()[0]
        action = bots.get_bot("heuristic", seed=moves).choose(position.view(mover))
        await send(sockets[mover], action=action)
        assert error_text(await error_frame(sockets[mover])) == ""
        for communicator in sockets:
            await frame_with_moves(communicator, moves)
        position = engine.Game.from_json((await current_game(table.pk)).state_json)
    await sockets[0].disconnect()
    again, first = await connected(table.pk, cookies[0], "en")
    try:
        assert 'data-moves="3"' in first
        hand = set(re.findall(r'<button type="button" class="t-card[^"]*" data-card="([^"]+)"', first))
        assert hand == set(position.hand(0))
        log = first.split('id="table-log"')[1]
        assert "The cards are dealt" in log and log.count("<li>") >= 3
    finally:
        await again.disconnect()
        await sockets[1].disconnect()


async def test_private_tables_admit_players_and_invited_guests_only():
    alice, bob, carol = await make_user("alice"), await make_user("bob"), await make_user("carol")
    table = await open_table([alice, bob], is_private=True)
    communicator, ok = await connect(table.pk)
    assert not ok
    communicator, ok = await connect(table.pk, await session_cookie(carol))
    assert not ok
    assert (await get_page(await session_cookie(carol), table.pk)).status_code == 404
    communicator, ok = await connect(table.pk, await session_cookie(carol, invited=[table.pk]))
    assert ok
    await communicator.disconnect()
    communicator, ok = await connect(table.pk, await anonymous_invited_cookie(table.pk))
    assert ok
    await communicator.disconnect()
    communicator, first = await connected(table.pk, await session_cookie(bob))
    await communicator.disconnect()
    communicator, ok = await connect(99999)
    assert not ok


@database_sync_to_async
def make_guest(name: str):
    user = get_user_model().objects.create_user(name)
    user.profile.is_guest = True  # the profile comes with the user
    user.profile.save()
    return user


async def test_a_guest_may_chat_and_play():
    guest, bob = await make_guest("guest-1"), await make_user("bob")
    table = await open_table([guest, bob])
    communicator, first = await connected(table.pk, await session_cookie(guest), "en")
    try:
        assert 'data-seat="0"' in first
        await send(communicator, chat="hi from a guest")
        assert error_text(await error_frame(communicator)) == ""
        assert "hi from a guest" in await communicator.receive_from(timeout=5)
    finally:
        await communicator.disconnect()


@database_sync_to_async
def waiting_table(host):
    return table_services.do_create_table(rules=engine.Rules(players=2), host=host)


async def test_a_waiting_table_offers_the_seat_controls():
    from django.urls import reverse

    host, guest = await make_user("host"), await make_user("visitor")
    table = await waiting_table(host)
    page = (await get_page(await session_cookie(host), table.pk, "en")).content.decode()
    assert reverse("games:table-start", args=[table.pk]) in page
    assert reverse("games:table-bot", args=[table.pk]) in page
    assert reverse("games:table-leave", args=[table.pk]) in page
    assert "csrfmiddlewaretoken" in page
    # Over the socket the forms carry the CSRF token from the browser's cookie.
    cookie = await session_cookie(guest)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/table/{table.pk}/",
        headers=[
            sockets.ORIGIN,
            sockets.HOST,
            (b"cookie", f"sessionid={cookie}; csrftoken={'k' * 32}; django_language=en".encode()),
        ],
    )
    ok, _ = await communicator.connect(timeout=5)
    assert ok
    try:
        frame = await communicator.receive_from(timeout=5)
        assert reverse("games:table-join", args=[table.pk]) in frame
        assert f'name="csrfmiddlewaretoken" value="{"k" * 32}"' in frame
        assert reverse("games:table-start", args=[table.pk]) not in frame  # not the host
        # The table changes (someone sits down): the socket hears of it.
        await database_sync_to_async(table_services.do_join_table)(table_id=table.pk, user=guest)
        frame = await communicator.receive_from(timeout=5)
        assert 'data-seat="1"' in frame and 'data-moves="0"' in frame  # full: it dealt itself
    finally:
        await communicator.disconnect()
