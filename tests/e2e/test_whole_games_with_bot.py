"""Whole games over the real ASGI app: two signed-in users and bots, to the end.

The people act only by sending frames on their own websockets, as a browser
does; the bot seats act only through the real bot path, the service the
Celery task calls (`play.do_advance_game` at the game's `bot_due_at`). Every
socket (both players and an anonymous spectator) must receive the state after
every single move, bots' moves included, and the final result; no frame sent
to a seat may carry a card code that seat may not see.
"""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from games import bots, engine
from games.models import Game, GameSeat, Move
from games.services import play
from games.services import tables as table_services
from tests.support import games as support_games
from tests.support.snapshots import card_codes, event_cards, visible_now
from tests.support.sockets import ERROR_RE, FRAME_TIMEOUT, connect_table, moves_in, session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

MAX_MOVES = 800


# ------------------------------------------------------------------ helpers


make_user = database_sync_to_async(support_games.make_user)


@database_sync_to_async
def open_table(rules: engine.Rules, people, bot_seats: dict):
    return table_services.do_create_table(
        rules=rules, host=people[0], seat_users=list(people), bot_seats=bot_seats, start=True
    )


@database_sync_to_async
def current_game(table_id: int) -> Game:
    return Game.objects.filter(table_id=table_id).order_by("-number").first()


@database_sync_to_async
def last_move(game_id: int) -> Move:
    return Move.objects.filter(game_id=game_id).order_by("-number").first()


@database_sync_to_async
def game_seats(game_id: int) -> list[GameSeat]:
    return list(GameSeat.objects.filter(game_id=game_id).order_by("number"))


@database_sync_to_async
def get_page(cookie: str | None, table_id: int) -> str:
    client = Client(headers={"accept-language": "en"})
    if cookie:
        client.cookies["sessionid"] = cookie
    response = client.get(f"/table/{table_id}/")
    assert response.status_code == 200
    return response.content.decode()


advance_game = database_sync_to_async(play.do_advance_game)


async def connect(table_id: int, cookie: str | None):
    return await connect_table(table_id, cookie, language="en")


async def frames_until(communicator, done, seen: list) -> str:
    """Receive frames (each kept in `seen`) until `done(frame)`; return that frame."""
    for _ in range(30):
        frame = await communicator.receive_from(timeout=FRAME_TIMEOUT)
        seen.append(frame)
        if done(frame):
            return frame
    raise AssertionError("the awaited frame never came")


def frame_data(action: str, seat: int, table_id: int, game_id: int) -> str:
    return json.dumps(
        {
            "action": action,
            "seat": str(seat),
            "table": str(table_id),
            "game": str(game_id),
            "HEADERS": {"HX-Request": "true", "HX-Trigger": None, "HX-Target": "table-live"},
        }
    )


# ------------------------------------------------------------------ the games


CASES = {
    "podkidnoy-3": (engine.Rules(variant="podkidnoy", players=3), {2: "heuristic"}),
    "perevodnoy-3": (engine.Rules(variant="perevodnoy", players=3), {2: "heuristic"}),
    "podkidnoy-2v2": (engine.Rules(variant="podkidnoy", players=4, partners=True), {2: "heuristic", 3: "heuristic"}),
    "perevodnoy-2v2": (
        engine.Rules(variant="perevodnoy", players=4, partners=True, trump_show_transfer=True, trump_six_swap=True),
        {2: "heuristic", 3: "heuristic"},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_two_people_and_bots_play_a_whole_game_over_websockets(case):
    rules, bot_seats = CASES[case]
    people = [await make_user(f"{case}-alice"), await make_user(f"{case}-bob")]
    humans = {0: people[0], 1: people[1]}
    table = await open_table(rules, people, bot_seats)
    game = await current_game(table.pk)
    position = engine.Game.from_json(game.state_json)

    # Seat 0 and seat 1 are the two people; None is an anonymous spectator.
    viewers = [0, 1, None]
    cookies = {0: await session_cookie(people[0]), 1: await session_cookie(people[1]), None: None}
    sockets, allowed, frames, seen_moves = {}, {}, {}, {}
    for viewer in viewers:
        sockets[viewer], first = await connect(table.pk, cookies[viewer])
        allowed[viewer] = visible_now(position, viewer)
        frames[viewer] = [first]
        seen_moves[viewer] = [moves_in(first)]
        expected_seat = "" if viewer is None else str(viewer)
        assert f'data-seat="{expected_seat}"' in first
        if viewer is not None:  # the card-code check does see cards: its own hand is there
            assert set(position.hand(viewer)) <= card_codes(first)
    try:
        moves = 0
        sources = {}
        while not position.is_over:
            assert moves < MAX_MOVES, "the game does not end"
            to_move = position.to_move()
            assert to_move, "nobody to move in a running game"
            people_to_move = [s for s in to_move if s in humans]
            before = position.copy()
            if people_to_move:
                seat = people_to_move[0]
                choice = bots.get_bot("heuristic", seed=moves).choose(position.view(seat))
                assert choice in position.legal_actions(seat)
                await sockets[seat].send_to(text_data=frame_data(choice, seat, table.pk, game.pk))
            else:
                # Only bots are awaited: the Celery task's call, when the bot's pause is over.
                assert game.bot_due_at is not None, "a bot is awaited but no bot move is scheduled"
                assert await advance_game(game_id=game.pk, now=game.bot_due_at) == 1
            moves += 1

            # Every socket hears of the move; the mover first gets its (empty) error area.
            new_frames = {}
            for viewer in viewers:
                received = new_frames[viewer] = []
                if viewer in people_to_move[:1]:
                    await frames_until(sockets[viewer], lambda f: 'id="table-error"' in f, received)
                    refusal = ERROR_RE.search(received[-1]).group(1).strip()
                    assert refusal == "", f"seat {viewer}'s move {choice!r} was refused: {refusal}"
                if not any((moves_in(f) or 0) >= moves for f in received):
                    await frames_until(sockets[viewer], lambda f, moves=moves: (moves_in(f) or 0) >= moves, received)
                frames[viewer].extend(received)
                seen_moves[viewer] += [moves_in(f) for f in received if moves_in(f) is not None]

            game = await current_game(table.pk)
            assert game.move_count == moves
            move = await last_move(game.pk)
            assert move.number == moves - 1
            sources[move.source] = sources.get(move.source, 0) + 1
            if move.seat in humans:
                assert move.source == Move.Source.PLAYER
            else:
                assert move.source == Move.Source.BOT and not people_to_move
            events = before.act(move.seat, move.action)
            position = engine.Game.from_json(game.state_json)
            assert before == position, "the cached state is not the logged moves' result"

            # Hidden information: nothing beyond what each viewer may know by now.
            for viewer in viewers:
                allowed[viewer] |= visible_now(position, viewer) | event_cards(events, viewer)
                for frame in new_frames[viewer]:
                    leaked = card_codes(frame) - allowed[viewer]
                    assert not leaked, f"viewer {viewer} was sent {sorted(leaked)} with move {moves} ({move.action})"

        # Each socket saw the state after every single move and then the result.
        for viewer in viewers:
            assert seen_moves[viewer] == list(range(moves + 1)), viewer
            assert 'class="t-result"' in frames[viewer][-1]
        assert sources.get(Move.Source.BOT, 0) > 0 and sources.get(Move.Source.PLAYER, 0) > 0
        print(f"{case}: {moves} moves {sources}, places {position.places}, losers {position.losers}")

        # The finished game: status, result, and per-seat records.
        game = await current_game(table.pk)
        assert game.status == Game.Status.FINISHED and game.finished_at is not None
        assert game.deadline is None and game.bot_due_at is None
        assert game.result["places"] == {str(s): p for s, p in sorted(position.places.items())}
        seats = await game_seats(game.pk)
        assert len(seats) == rules.players
        for seat in seats:
            assert seat.place == position.places[seat.number]
            assert seat.counted_place == seat.place and not seat.abandoned and not seat.autopilot
            assert seat.is_loser == (seat.number in position.losers)
            assert (seat.user_id is not None) == (seat.number in humans)
            assert seat.bot_level == bot_seats.get(seat.number, "")
        if rules.partners:
            assert sorted(s.team for s in seats) == [0, 0, 1, 1]
            losers = {s.number for s in seats if s.is_loser}
            assert losers in ({0, 2}, {1, 3}, set())
        elif not game.result["draw"]:
            assert [s.number for s in seats if s.is_loser] == [game.result["durak"]]
            assert max(s.place for s in seats) == seats[game.result["durak"]].place

        # A late nudge changes nothing (the task is idempotent).
        assert await advance_game(game_id=game.pk) == 0
        assert (await current_game(table.pk)).move_count == moves

        # The pages served after the end leak nothing either, and show the result.
        for viewer in viewers:
            page = await get_page(cookies[viewer], table.pk)
            assert 'class="t-result"' in page
            leaked = card_codes(page) - allowed[viewer]
            assert not leaked, f"viewer {viewer}'s page shows {sorted(leaked)}"
    finally:
        for communicator in sockets.values():
            await communicator.disconnect()
