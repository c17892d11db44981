"""Game records: the replay with open hands after the end, and the provably fair check."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import translation

from games import engine, positions
from games.positions import verify_game
from tests.support.games import open_game, play_to_end

pytestmark = pytest.mark.django_db

RULES = [
    engine.Rules(players=2),
    engine.Rules(variant="perevodnoy", players=3, deck=52, throw_in="neighbours"),
    engine.Rules(variant="perevodnoy", players=4, partners=True, trump_show_transfer=True, trump_six_swap=True),
]


def html(response) -> str:
    return response.content.decode()


def cards_on(page: str) -> set[str]:
    return set(re.findall(r'data-card="([0-9JQKA]+[SHDC])"', page))


@pytest.fixture
def finished_game(players):
    users = players[:2]
    return play_to_end(open_game(users), users)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.variant}-{r.players}")
def test_an_honest_game_verifies(players, rules):
    users = players[: rules.players]
    game = play_to_end(open_game(users, rules), users)
    assert game.is_over and game.move_count > 0
    result = verify_game(game)
    assert result.ok, result.problems
    assert result.problems == []
    assert len(result.checks) >= 4

    out = StringIO()
    call_command("verify_game", str(game.pk), stdout=out)
    assert f"Game {game.pk} verifies" in out.getvalue()
    assert game.seed in out.getvalue()


def diverging_tamper(game):
    """A move of the log and a different legal action for it that changes the outcome
    (some alternative histories end in the very same position, which no check can tell)."""
    log = list(game.moves.order_by("number").values_list("seat", "action"))
    final = positions.position_of(game)
    for index, (seat, original) in enumerate(log):
        before = positions.replay(game, upto=index)
        for other in before.legal_actions(seat):
            if str(other) == original:
                continue
            position = before.copy()
            try:
                position.act(seat, other)
                for later_seat, later in log[index + 1 :]:
                    position.act(later_seat, later)
            except engine.IllegalAction:
                return index, str(other)
            if position != final:
                return index, str(other)
    raise AssertionError("no tamper changes this game")


def test_a_tampered_move_fails(finished_game):
    index, other = diverging_tamper(finished_game)
    move = finished_game.moves.get(number=index)
    move.action = other
    move.save()

    result = verify_game(finished_game)
    assert not result.ok
    assert result.problems

    out = StringIO()
    with pytest.raises(CommandError, match="does NOT verify"):
        call_command("verify_game", str(finished_game.pk), stdout=out)
    assert "FAIL" in out.getvalue()


def test_an_illegal_move_in_the_log_is_named(finished_game):
    move = finished_game.moves.order_by("number")[0]
    move.action = "take"  # nobody may take before an attack
    move.save()
    with translation.override("en"):
        result = verify_game(finished_game)
    assert not result.ok
    assert any("Move 0" in problem and "illegal" in problem for problem in result.problems)


def test_a_tampered_seed_fails(finished_game):
    finished_game.seed = "0" * 64
    finished_game.save()
    with translation.override("en"):
        result = verify_game(finished_game)
    assert not result.ok
    assert any("SHA-256" in problem for problem in result.problems)
    with pytest.raises(CommandError):
        call_command("verify_game", str(finished_game.pk), stdout=StringIO())


def test_a_tampered_result_fails(finished_game):
    honest = finished_game.result
    if honest["draw"]:
        forged = {**honest, "durak": 0, "draw": False, "losers": [0]}
    else:
        forged = {**honest, "durak": None, "draw": True, "losers": []}
    finished_game.result = forged
    finished_game.save()
    with translation.override("en"):
        result = verify_game(finished_game)
    assert not result.ok
    assert any("result" in problem for problem in result.problems)


def test_a_game_in_progress_cannot_be_verified(players):
    game = open_game(players[:2])
    assert not verify_game(game).ok
    with pytest.raises(CommandError, match="not over yet"):
        call_command("verify_game", str(game.pk), stdout=StringIO())
    with pytest.raises(CommandError, match="no game"):
        call_command("verify_game", "999999", stdout=StringIO())


def test_record_shows_every_hand_once_the_game_is_over(client, finished_game):
    dealt = positions.replay(finished_game, upto=0)
    url = reverse("games:game-record", kwargs={"game_id": finished_game.pk})
    page = html(client.get(url))
    assert finished_game.seed in page
    assert finished_game.seed_hash in page
    for seat in range(2):
        assert set(dealt.hand(seat)) <= cards_on(page)
    assert reverse("games:game-verify", kwargs={"game_id": finished_game.pk}) in page
    assert "player0" in page and "player1" in page
    # The result is in Russian by default.
    assert ("Ничья" if finished_game.result["draw"] else "дурак") in page

    # Every step can be shown; the htmx request gets only the position fragment.
    last = finished_game.move_count
    for step in (1, last // 2, last):
        position = positions.replay(finished_game, upto=step)
        response = client.get(url, {"step": step}, headers={"HX-Request": "true", "HX-Target": "replay"})
        fragment = html(response)
        assert "<html" not in fragment
        shown = cards_on(fragment)
        for seat in range(2):
            assert set(position.hand(seat)) <= shown
        assert f"Шаг {step} из {last}" in fragment
    # Out-of-range steps are clamped, not errors.
    assert client.get(url, {"step": "9999"}).status_code == 200
    assert client.get(url, {"step": "x"}).status_code == 200


def test_record_of_a_game_in_progress_shows_no_hands(client, players):
    game = open_game(players[:2])
    play_to_end(game, players[:2], moves=3)
    page = html(client.get(reverse("games:game-record", kwargs={"game_id": game.pk})))
    assert cards_on(page) == set()
    assert game.seed not in page
    assert game.seed_hash in page
    assert "ещё идёт" in page
    verify_page = html(client.get(reverse("games:game-verify", kwargs={"game_id": game.pk})))
    assert game.seed not in verify_page
    assert client.get(reverse("games:game-record", kwargs={"game_id": 999999})).status_code == 404


def test_verify_page_shows_the_result(client, finished_game):
    page = html(client.get(reverse("games:game-verify", kwargs={"game_id": finished_game.pk})))
    assert "Проверено" in page
    finished_game.seed = "1" * 64
    finished_game.save()
    page = html(client.get(reverse("games:game-verify", kwargs={"game_id": finished_game.pk})))
    assert "НЕ проходит" in page


def test_record_page_in_english(client, finished_game):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = html(client.get(reverse("games:game-record", kwargs={"game_id": finished_game.pk})))
    assert "Verify this game" in page
    assert "Replay" in page
    assert "Проверить" not in page
