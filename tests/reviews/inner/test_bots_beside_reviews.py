"""Issue 16, "What was seen" 2: reviews shared the queue that moves the bots, and
bot replies took 5.8-15.7 s instead of 0.2-0.4 s.

In the embedded mode (worker, batch worker and beat in threads of this
process, in-memory broker) 20 reviews are asked for with the site's own review
budget; while they are queued and being computed, a table of bots plays on,
and every bot move comes within the bot's pause (BOT_PAUSE_SECONDS, at most
its upper bound) plus 1 s of the move before it. Nobody calls a task here.
"""

from __future__ import annotations

import time

import pytest
from django.conf import settings

from durak_site import embedded
from games import engine
from games.models import Move
from games.services import tables
from reviews import services
from reviews.models import Review
from tests.support.games import latest_game, make_user, open_game, play_to_end

pytestmark = pytest.mark.django_db(transaction=True)

REVIEWS = 20
MOVES = 10  # bot moves measured


def wait_for(check, what: str, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"waited {seconds} s for {what}")


def test_bot_replies_stay_within_their_pause_while_20_reviews_are_queued():
    assert settings.REVIEWS_PER_DAY >= REVIEWS
    anna, boris = make_user("anna"), make_user("boris")
    games = [play_to_end(open_game([anna, boris]), [anna, boris]) for _ in range(REVIEWS)]
    pause_max = max(settings.BOT_PAUSE_SECONDS)
    bound = pause_max + 1.0
    runner = embedded.start_embedded_celery()
    try:
        assert runner.batch_thread.name == embedded.BATCH_THREAD_NAME and runner.batch_thread.is_alive()
        for game in games:
            services.do_request_review(game.pk, anna)
        wait_for(lambda: Review.objects.filter(status="running").exists(), "a review to start", 30)
        table = tables.do_create_table(
            rules=engine.Rules(variant="podkidnoy", players=2), bot_seats={0: "medium", 1: "easy"}, start=True
        )
        game_id = latest_game(table).pk

        def made():
            return Move.objects.filter(game_id=game_id).count()

        deadline = time.monotonic() + MOVES * bound + 10
        while made() < MOVES and time.monotonic() < deadline:
            time.sleep(0.1)
        created = list(Move.objects.filter(game_id=game_id).order_by("number").values_list("created_at", flat=True))
        waiting = Review.objects.exclude(status="done").count()
    finally:
        runner.stop()
    gaps = [round((b - a).total_seconds(), 2) for a, b in zip(created, created[1:MOVES])]
    assert len(created) >= MOVES, f"{len(created)} bot moves in {MOVES * bound + 10:.0f} s, {gaps} s apart"
    # The reviews were still queued or being computed the whole time.
    assert waiting >= REVIEWS // 2, waiting
    assert max(gaps) <= bound, f"bot moves {gaps} s apart; pause at most {pause_max} s"
