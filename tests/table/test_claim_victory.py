"""Issue 17, "Presence and leavers" (what was seen 4: a friend who closed his tab froze the
game, «Сдаться» the only way out): at a table without a turn timer, once an opponent has
been offline for `claim.CLAIM_AFTER_SECONDS`, the others see «Забрать победу»; pressing it
ends the game: the leaver ranks last, the rest by their position (as lichess's "claim
victory"). Refused, changing nothing: too early, he is back, not your game, a timed table."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse
from django.utils import timezone, translation

from games import engine
from games.errors import MoveRefused
from games.models import Game, TableSeat
from games.services import claim
from games.services import tables as table_services
from games.table import presenters, rendering
from tests.support import games as support_games
from tests.support.snapshots import snapshot_for
from tests.support.sockets import FRAME_TIMEOUT, connect_table, session_cookie

CLAIM_BUTTON = "Забрать победу"


def open_game(users, turn_seconds=None) -> Game:
    table = table_services.do_create_table(
        rules=engine.Rules(players=len(users)), seat_users=list(users), turn_seconds=turn_seconds, start=True
    )
    return Game.objects.filter(table=table).latest("number")


def gone_for(game: Game, user, seconds: float):
    TableSeat.objects.filter(table_id=game.table_id, user=user).update(
        offline_since=timezone.now() - timedelta(seconds=seconds)
    )


def seats_of(game: Game) -> dict:
    return {s.user.username: s for s in Game.objects.get(pk=game.pk).seats.select_related("user")}


@pytest.fixture
def people(db):
    return [support_games.make_user(name) for name in ("anna", "boris", "vera", "gleb")]


# ------------------------------------------------------------------ the service


def test_issue17_claiming_ends_the_game_with_the_leaver_last(people):
    anna, boris = people[:2]
    game = open_game([anna, boris])
    gone_for(game, boris, claim.CLAIM_AFTER_SECONDS + 1)
    moves = game.move_count

    assert claim.do_claim_victory(game_id=game.pk, user=anna) == [seats_of(game)["boris"].number]

    game.refresh_from_db()
    seats = seats_of(game)
    assert game.status == Game.Status.FINISHED and game.move_count == moves
    assert game.result["ended"]["reason"] == claim.CLAIMED and game.result["ended"]["by"] == anna.pk
    assert seats["boris"].counted_place == 2 and seats["boris"].is_loser and seats["boris"].abandoned
    assert seats["anna"].counted_place == 1 and not seats["anna"].is_loser
    assert game.table.status == "finished"


def test_issue17_the_others_rank_by_their_position(people):
    anna, boris, vera = people[:3]
    game = open_game([anna, boris, vera])
    gone_for(game, boris, claim.CLAIM_AFTER_SECONDS + 5)
    claim.do_claim_victory(game_id=game.pk, user=vera)
    seats = seats_of(game)
    # nobody was out yet: the two who stayed finish level, above the leaver
    assert (seats["anna"].counted_place, seats["vera"].counted_place, seats["boris"].counted_place) == (1, 1, 3)
    assert [s for s, row in seats.items() if row.is_loser] == ["boris"]


def refusal_of(game_id, user) -> str:
    with translation.override("ru"), pytest.raises(MoveRefused) as refused:
        claim.do_claim_victory(game_id=game_id, user=user)
    return str(refused.value)


def test_issue17_too_early_is_refused_and_changes_nothing(people):
    anna, boris = people[:2]
    game = open_game([anna, boris])
    gone_for(game, boris, claim.CLAIM_AFTER_SECONDS - 20)
    assert refusal_of(game.pk, anna).startswith("Рано: победу можно забрать, когда соперника нет 60 с")
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING and not seats_of(game)["boris"].abandoned


def test_issue17_a_player_who_is_back_cannot_be_claimed_against(people):
    anna, boris = people[:2]
    game = open_game([anna, boris])
    assert refusal_of(game.pk, anna) == "Соперники за столом: забирать победу не у кого."
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING


def test_issue17_only_a_player_of_the_game_may_claim_it(people):
    anna, boris, vera = people[:3]
    game = open_game([anna, boris])
    gone_for(game, boris, 600)
    assert refusal_of(game.pk, vera) == "Забрать победу можно только за столом, где вы играете сами."
    # nor the one who is away against the one who stayed
    assert refusal_of(game.pk, boris) == "Соперники за столом: забирать победу не у кого."
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING


def test_issue17_a_table_with_a_turn_timer_needs_no_claim(people):
    anna, boris = people[:2]
    game = open_game([anna, boris], turn_seconds=30)
    gone_for(game, boris, 600)
    assert refusal_of(game.pk, anna).startswith("За этим столом есть таймер хода")
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING


def test_issue17_a_leaver_on_autopilot_is_not_claimed_against(people):
    """His autopilot plays on: the game is not stuck (and he is last already)."""
    anna, boris = people[:2]
    game = open_game([anna, boris])
    gone_for(game, boris, 600)
    Game.objects.get(pk=game.pk).seats.filter(user=boris).update(autopilot=True, abandoned=True)
    assert refusal_of(game.pk, anna) == "Соперники за столом: забирать победу не у кого."


# ------------------------------------------------------------------ the button


def two_seat_snapshot(**kw):
    position = engine.Game.from_layout(
        engine.Rules(players=2), hands=[["6S", "7S"], ["6H", "9S"]], stock=["8S", "9H", "10C"], attacker=0
    )
    snapshot = snapshot_for(position, **kw)
    snapshot["game"]["turn_seconds"] = None
    return snapshot


def page_of(snapshot, seat, viewer_id, now) -> str:
    with translation.override("ru"):
        context = presenters.table_context(snapshot, seat, [], viewer_id=viewer_id, now=now)
        regions = rendering.render_regions(rendering.decorated(context), rendering.region_names(context))
        return "".join(regions.values())


def test_issue17_the_button_shows_once_the_opponent_has_been_away_long_enough():
    now = timezone.now()
    snapshot = two_seat_snapshot()
    assert CLAIM_BUTTON not in page_of(snapshot, 0, 100, now)
    snapshot["offline"] = {"101": (now - timedelta(seconds=claim.CLAIM_AFTER_SECONDS - 1)).isoformat()}
    assert CLAIM_BUTTON not in page_of(snapshot, 0, 100, now)  # too early
    snapshot["offline"] = {"101": (now - timedelta(seconds=claim.CLAIM_AFTER_SECONDS)).isoformat()}
    page = page_of(snapshot, 0, 100, now)
    assert CLAIM_BUTTON in page and reverse("games:table-claim", args=[1]) in page
    assert CLAIM_BUTTON not in page_of(snapshot, 1, 101, now)  # not to the one who left
    assert CLAIM_BUTTON not in page_of(snapshot, None, None, now)  # nor to a spectator
    snapshot["game"]["turn_seconds"] = 30
    assert CLAIM_BUTTON not in page_of(snapshot, 0, 100, now)  # the timer plays for him


def test_issue17_the_claim_view_ends_the_game(client, people):
    anna, boris = people[:2]
    game = open_game([anna, boris])
    gone_for(game, boris, 120)
    client.force_login(anna)
    response = client.post(reverse("games:table-claim", args=[game.table_id]), follow=True)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert "Вы забрали победу" in response.content.decode()


def test_issue17_the_claim_view_shows_a_refusal(client, people):
    anna, boris = people[:2]
    game = open_game([anna, boris])
    client.force_login(anna)
    response = client.post(reverse("games:table-claim", args=[game.table_id]), follow=True)
    assert "Соперники за столом: забирать победу не у кого." in response.content.decode()
    game.refresh_from_db()
    assert game.status == Game.Status.PLAYING


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_issue17_the_button_appears_live_when_the_wait_is_over(monkeypatch):
    monkeypatch.setattr(claim, "CLAIM_AFTER_SECONDS", 1)
    make_user = database_sync_to_async(support_games.make_user)
    anna, boris = await make_user("anna"), await make_user("boris")
    game = await database_sync_to_async(open_game)([anna, boris])
    annas, first = await connect_table(game.table_id, await session_cookie(anna))
    assert CLAIM_BUTTON not in first
    boriss, _first = await connect_table(game.table_id, await session_cookie(boris))
    await boriss.disconnect()
    loop = asyncio.get_running_loop()
    until = loop.time() + FRAME_TIMEOUT
    seen = ""
    while CLAIM_BUTTON not in seen:
        seen = await annas.receive_from(timeout=max(0.1, until - loop.time()))
    await annas.disconnect()
