"""A game that ends off the cards (a win claimed over a player who left, a forfeit, a
director's adjudication) ends everywhere it is shown: the log says how it ended and who
lost, the seats stop saying who attacks and who defends, and the record page never calls
a game with a leaver a plain draw."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import engine
from games.models import Game, GameSeat, TableSeat
from games.services import adjudication, claim
from tests.support import games as support_games

ROLES = ("Ходит", "Отбивается", "Подкидывает", "Берёт")


@pytest.fixture
def people(db):
    return [support_games.make_user(name) for name in ("anna", "boris", "vera")]


def table_page(client, user, game: Game) -> str:
    client.force_login(user)
    return client.get(reverse("games:table", args=[game.table_id]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()


def log_of(page: str) -> str:
    return re.search(r'<section id="table-log".*?</section>', page, re.S).group(0)


def seat_roles(page: str) -> list[str]:
    return re.findall(r'<span class="t-role">([^<]*)</span>', page)


def test_a_claimed_win_closes_the_log_and_clears_the_seats_roles(client, people):
    anna, boris = people[:2]
    game = support_games.open_game([anna, boris])
    assert set(seat_roles(table_page(client, anna, game))) & set(ROLES)  # while it is played
    TableSeat.objects.filter(table_id=game.table_id, user=boris).update(
        offline_since=timezone.now() - timedelta(seconds=claim.CLAIM_AFTER_SECONDS + 1)
    )
    claim.do_claim_victory(game_id=game.pk, user=anna)

    page = table_page(client, anna, game)
    assert not set(seat_roles(page)) & set(ROLES)
    log = log_of(page)
    assert "Игра остановлена: победа засчитана над игроком, ушедшим из-за стола" in log
    assert "Игра окончена: <b>boris</b> — дурак" in log
    # newest first: the result on top, then why the game stopped, then the last move
    over, stopped = log.index("Игра окончена"), log.index("Игра остановлена")
    assert log.index("<li>") < over < stopped < log.index("<li>", stopped)


def test_an_adjudicated_game_says_so_in_the_log(client, people):
    anna, boris, vera = people
    game = support_games.open_game([anna, boris, vera])
    adjudication.do_adjudicate_game(game_id=game.pk, places={"0": 1, "1": 2, "2": 3}, by_id=None)

    page = table_page(client, boris, game)
    assert not set(seat_roles(page)) & set(ROLES)
    assert "Игра остановлена: места назначил судья" in log_of(page)
    assert "Игра окончена: <b>vera</b> — дурак" in log_of(page)


def test_the_record_of_a_draw_with_a_leaver_says_the_leaver_is_last_not_a_draw(client, people):
    anna, boris, vera = people
    game = support_games.open_game([anna, boris, vera], engine.Rules(players=3))
    # Anna resigned (last, her seat left to the autopilot); Boris and Vera finished level.
    GameSeat.objects.filter(game=game, number=0).update(abandoned=True, autopilot=True, place=1, counted_place=3)
    GameSeat.objects.filter(game=game, number__in=[1, 2]).update(place=1, counted_place=1)
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED,
        finished_at=timezone.now(),
        result={"places": {"0": 1, "1": 1, "2": 1}, "durak": None, "losers": [], "draw": True},
    )
    client.force_login(boris)
    page = client.get(reverse("games:game-record", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Ничья" not in page
    assert "Среди остальных дурака нет: их последние карты ушли одновременно." in page
    assert "выход из игры: последнее место" in page

    # A draw with nobody gone is still a draw.
    GameSeat.objects.filter(game=game, number=0).update(abandoned=False, autopilot=False, counted_place=1)
    page = client.get(reverse("games:game-record", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Ничья: последние карты ушли одновременно." in page
