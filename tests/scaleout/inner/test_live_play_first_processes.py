"""Issue 16, "What must work", live play first, on PostgreSQL + Redis with real workers (run
by tests/scaleout/test_live_play_first_processes.py): the latency worker (the Procfile's
`worker`, WORKER_QUEUES) and the batch worker (`batch`, BATCH_QUEUES, `nice -n 10`, two at a
time) are separate `celery worker` processes, with beat.

20 reviews are asked for; while they are queued and being computed, a person plays a live
table against a bot, and every bot reply comes within the bot's pause (BOT_PAUSE_SECONDS, at
most its upper bound) plus 1 s of the move before it. The workers' logs show that only the
batch worker took the reviews, and only the latency worker the bot's moves.
"""

from __future__ import annotations

import time

import pytest
from django.conf import settings

from games import engine, positions
from games.choices import MoveSource
from games.models import Game, Move
from games.services import play
from reviews import services
from reviews.models import Review
from tests.support.games import human_choice, latest_game, make_user, new_table, open_game, play_to_end
from tests.support.processes import Worker, celery_processes, ran, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

REVIEWS = 20
REPLIES = 12  # bot replies measured


def bot_replies(user, wanted: int, seconds: float) -> list[float]:
    """The person (seat 0) plays a live table against a bot, moving whenever it is his turn;
    each bot move's delay after the move before it, until `wanted` were seen (a new table
    when a game ends)."""
    gaps: list[float] = []
    measured: set[int] = set()
    deadline = time.monotonic() + seconds
    game = None
    while len(gaps) < wanted:
        assert time.monotonic() < deadline, f"{len(gaps)} bot replies in {seconds:.0f} s: {gaps}"
        if game is None or game.is_over:
            table = new_table(engine.Rules(variant="podkidnoy", players=2), [user], bot_seats={1: "medium"})
            game, measured = latest_game(table), set()
        made = list(Move.objects.filter(game=game).order_by("number").values_list("number", "created_at", "source"))
        for (_, before, _), (number, at, source) in zip(made, made[1:]):
            if source == MoveSource.BOT and number not in measured:
                measured.add(number)
                gaps.append(round((at - before).total_seconds(), 2))
        game = Game.objects.get(pk=game.pk)
        position = positions.position_of(game)
        if not game.is_over and 0 in position.to_move():
            play.do_player_move(
                game_id=game.pk, user=user, action=human_choice(position, 0, game.move_count), expected_seat=0
            )
        else:
            time.sleep(0.05)  # the bot's turn: the latency worker makes it
    return gaps[:wanted]


def test_issue16_bot_replies_keep_their_pause_beside_20_reviews_with_separate_workers(tmp_path):
    assert settings.REVIEWS_PER_DAY >= REVIEWS
    anna, boris, player = make_user("anna"), make_user("boris"), make_user("player")
    games = [play_to_end(open_game([anna, boris]), [anna, boris]) for _ in range(REVIEWS)]
    pause_max = max(settings.BOT_PAUSE_SECONDS)
    bound = pause_max + 1.0
    workers = {
        "latency": Worker(settings.WORKER_QUEUES, concurrency=2),
        "batch": Worker(settings.BATCH_QUEUES, concurrency=2, nice=True),
    }
    with celery_processes(tmp_path, workers) as logs:
        for game in games:
            services.do_request_review(game.pk, anna)
        wait_for(lambda: Review.objects.filter(status="running").exists(), "the batch worker to start a review", 60)
        gaps = bot_replies(player, REPLIES, REPLIES * bound * 3 + 30)
        waiting = Review.objects.exclude(status="done").count()
        latency, batch = logs["latency"].read_text(), logs["batch"].read_text()
    print(f"bot replies {gaps} s after the move before, {waiting} reviews not done")  # shown by -rA
    # The reviews were still queued or being computed the whole time.
    assert waiting >= REVIEWS // 2, waiting
    assert max(gaps) <= bound, f"bot replies {gaps} s after the move before; pause at most {pause_max} s"
    assert ran(batch, "reviews.tasks.run_review"), batch[-3000:]
    assert not ran(latency, "reviews.tasks.run_review"), "a review ran on the latency worker"
    assert ran(latency, "games.tasks.advance_game") and not ran(batch, "games.tasks.advance_game")
