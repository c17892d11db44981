"""The review on the record page: the player's own, for him alone."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Move
from reviews import services
from reviews.models import Review, ReviewedDecision
from tests.support.games import open_game, play_to_end

pytestmark = pytest.mark.django_db

BUTTON = "Разобрать мою партию"
PENDING = "Бот-эксперт проверяет ваши решения."


@pytest.fixture
def finished(players):
    users = players[:2]
    return play_to_end(open_game(users), users)


def page(client, user, game, **params):
    if user is not None:
        client.force_login(user)
    response = client.get(reverse("games:game-record", kwargs={"game_id": game.pk}), params)
    assert response.status_code == 200
    return response.content.decode()


def blunder_review(game, user, seat=0):
    """A done review of `seat` with one blunder, built by hand: the seat's first move
    marked, "take" named as the better move."""
    move = Move.objects.filter(game=game, seat=seat).order_by("number").first()
    review = Review.objects.create(
        game=game,
        seat=seat,
        user=user,
        status="done",
        inaccuracy=0.05,
        mistake=0.1,
        blunder=0.2,
        deals=10,
        playouts=50,
        decisions=1,
    )
    ReviewedDecision.objects.create(
        review=review,
        move_number=move.number,
        played=move.action,
        best="take",
        value_played=0.4,
        value_best=0.65,
        drop=0.25,
        label="blunder",
    )
    return review, move


def test_a_player_of_the_finished_game_gets_the_button(client, finished, players):
    assert BUTTON in page(client, players[0], finished)


def test_a_stranger_or_a_visitor_gets_no_review_at_all(client, finished, players):
    html = page(client, None, finished)
    assert "review-panel" not in html
    html = page(client, players[2], finished)
    assert "review-panel" not in html and BUTTON not in html


def test_no_review_while_the_game_is_played(client, players):
    game = open_game(players[:2])
    assert "review-panel" not in page(client, players[0], game)
    client.force_login(players[0])
    response = client.post(reverse("reviews:request", kwargs={"game_id": game.pk}))
    assert response.status_code == 404


def test_asking_shows_the_pending_panel_which_polls(client, finished, players, sent_tasks):
    client.force_login(players[0])
    url = reverse("reviews:request", kwargs={"game_id": finished.pk})
    response = client.post(url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert PENDING in html
    assert 'hx-trigger="every 2s"' in html
    assert reverse("reviews:panel", kwargs={"game_id": finished.pk}) in html
    assert Review.objects.filter(game=finished, seat=0, status="pending").count() == 1
    # Without htmx: back to the record, which shows the pending state.
    response = client.post(url)
    assert response.status_code == 302
    assert PENDING in page(client, players[0], finished)
    assert Review.objects.count() == 1


def test_a_stranger_cannot_ask_or_peek(client, finished, players, sent_tasks):
    blunder_review(finished, players[0])
    client.force_login(players[2])
    assert client.post(reverse("reviews:request", kwargs={"game_id": finished.pk})).status_code == 404
    assert client.get(reverse("reviews:panel", kwargs={"game_id": finished.pk})).status_code == 404
    client.logout()
    assert client.get(reverse("reviews:panel", kwargs={"game_id": finished.pk})).status_code == 404
    assert Review.objects.count() == 1


def test_the_poll_reloads_the_page_once_the_review_is_done(client, finished, players, sent_tasks):
    client.force_login(players[0])
    review = services.do_request_review(finished.pk, players[0])
    url = reverse("reviews:panel", kwargs={"game_id": finished.pk})
    assert PENDING in client.get(url, headers={"HX-Request": "true"}).content.decode()
    services.do_run_review(review.pk)
    response = client.get(url, headers={"HX-Request": "true"})
    assert response.status_code == 204
    assert response["HX-Refresh"] == "true"


def test_the_player_sees_his_marks_on_the_replay(client, finished, players):
    _, move = blunder_review(finished, players[0])
    html = page(client, players[0], finished)
    assert '<span class="review-mark review-blunder" title="грубая ошибка">??</span>' in html
    assert "лучше: «берёт карты» (−25 %)" in html
    assert "1 грубая ошибка" in html and "0 ошибок" in html and "0 неточностей" in html
    assert "шанс не проиграть 40 %" in html and "(65 %)" in html
    assert f"?step={move.number + 1}" in html
    assert BUTTON not in html


def test_the_opponent_and_strangers_never_see_his_marks(client, finished, players):
    blunder_review(finished, players[0])
    for viewer in (players[1], players[2], None):
        client.logout()
        html = page(client, viewer, finished)
        assert "review-mark" not in html
        assert "лучше:" not in html
    # The opponent is offered a review of his own seat instead.
    client.logout()
    assert BUTTON in page(client, players[1], finished)


def test_a_review_without_faults_says_so(client, finished, players, sent_tasks):
    review = services.do_request_review(finished.pk, players[0])
    services.do_run_review(review.pk)
    ReviewedDecision.objects.filter(review=review).update(label="")
    review.refresh_from_db()
    html = page(client, players[0], finished)
    assert "не нашёл ни одной неточности" in html
    assert "review-mark" not in html
