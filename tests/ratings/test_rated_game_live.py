"""A whole rated game over websockets (R27): two people play it to the end by
sending frames, as browsers do; the finished game nudges its variant's ratings
queue, the worker's task rates it, and both players' ratings have changed and
are shown on the ratings pages."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from games import engine
from games.models import Game
from games.services import tables as table_services
from ratings import model, selectors, tasks
from ratings.models import Rating
from tests.support import games as support_games
from tests.support.sockets import FRAME_TIMEOUT, connect_table, frame, moves_in, session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

MAX_MOVES = 600

make_user = database_sync_to_async(support_games.make_user)


@database_sync_to_async
def open_rated_table(people):
    rules = engine.Rules(variant="perevodnoy", players=2)
    return table_services.do_create_table(rules=rules, host=people[0], seat_users=list(people), rated=True, start=True)


@database_sync_to_async
def current_game(table_id: int) -> Game:
    return Game.objects.filter(table_id=table_id).order_by("-number").first()


@database_sync_to_async
def ratings_of(people):
    return {r.user_id: r for r in Rating.objects.filter(user__in=people)}


@database_sync_to_async
def page(path: str) -> str:
    response = Client(headers={"accept-language": "ru"}).get(path)
    assert response.status_code == 200
    return response.content.decode()


async def until_moves(communicator, count: int) -> None:
    for _ in range(40):
        if (moves_in(await communicator.receive_from(timeout=FRAME_TIMEOUT)) or 0) >= count:
            return
    raise AssertionError(f"no frame showed move {count}")


async def test_a_whole_rated_game_over_websockets_changes_and_shows_both_ratings(monkeypatch):
    from durak_site.celery import app

    sent = []
    monkeypatch.setattr(app, "send_task", lambda name, args=None, queue=None, **kw: sent.append((name, args, queue)))
    people = [await make_user("rated-anna"), await make_user("rated-boris")]
    table = await open_rated_table(people)
    game = await current_game(table.pk)
    sockets = {}
    for seat, person in enumerate(people):
        sockets[seat], first = await connect_table(table.pk, await session_cookie(person), language="ru")
        # Rendered on the consumer's event loop: the badges (a newcomer's number with "?") and,
        # before the first move, each player's chance of being the durak (even: 50 % each).
        assert first.count('class="rating-badge provisional"') == 2 and first.count(f">{selectors.NEWCOMER}</a>") == 2
        assert "Шанс остаться дураком" in first
        assert "rated-anna: ≈50% (" in first and "rated-boris: ≈50% (" in first
    try:
        moves = 0
        position = engine.Game.from_json(game.state_json)
        while not position.is_over:
            assert moves < MAX_MOVES, "the game does not end"
            seat = position.to_move()[0]
            choice = support_games.human_choice(position, seat, moves)
            await sockets[seat].send_to(
                text_data=frame(action=choice, seat=str(seat), table=str(table.pk), game=str(game.pk))
            )
            moves += 1
            for communicator in sockets.values():
                await until_moves(communicator, moves)
            if moves == 1:
                after_first = await page(reverse("games:table", args=[table.pk]))
                assert "rating-badge" in after_first and "остаться дураком" not in after_first
            game = await current_game(table.pk)
            assert game.move_count == moves
            position = engine.Game.from_json(game.state_json)
    finally:
        for communicator in sockets.values():
            await communicator.disconnect()

    assert game.status == Game.Status.FINISHED and game.rated
    # The finished game nudged the perevodnoy ratings queue, once; the worker runs the task.
    assert sent == [("ratings.tasks.rate_game", [game.pk], "ratings-perevodnoy")]
    assert await database_sync_to_async(tasks.rate_game.apply)(args=[game.pk]) is not None
    ratings = await ratings_of(people)
    assert set(ratings) == {p.pk for p in people}
    for person in people:
        rating = ratings[person.pk]
        assert rating.variant == "perevodnoy" and rating.games == 1
        assert rating.sigma < model.SIGMA  # both changed
    first, second = (ratings[p.pk] for p in people)
    if game.result["draw"]:
        assert first.mu == second.mu
    else:
        durak = people[game.result["durak"]].pk
        winner = next(p.pk for p in people if p.pk != durak)
        assert ratings[winner].mu > model.MU > ratings[durak].mu

    # Shown: the ladder lists both (provisional after one game), the history charts the game.
    ladder = await page("/ratings/perevodnoy/")
    assert "rated-anna" in ladder and "rated-boris" in ladder
    history = await page("/ratings/perevodnoy/players/rated-anna/")
    assert "<polyline" in history and "после 1 рейтинговой партии" in history
