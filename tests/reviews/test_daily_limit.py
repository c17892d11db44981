"""Issue 16, "What was seen" 2: one person with two accounts asked for 90 reviews in
280 s, all accepted. Reviews are limited per person per day (REVIEWS_PER_DAY, counted
in the database) and per game (one per seat, and a person has one seat)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from reviews import services
from reviews.models import Review
from tests.support.games import open_game, play_to_end

pytestmark = pytest.mark.django_db

REFUSAL = "За сутки уже заказано столько разборов, сколько можно (2). Попробуйте позже."


@pytest.fixture
def three_games(players):
    users = players[:2]
    return [play_to_end(open_game(users), users) for _ in range(3)]


def test_the_default_is_20_a_day(settings):
    assert settings.REVIEWS_PER_DAY == 20


def test_a_person_gets_the_days_limit_and_then_a_translated_refusal(
    three_games, players, settings, sent_tasks, django_capture_on_commit_callbacks
):
    settings.REVIEWS_PER_DAY = 2
    with django_capture_on_commit_callbacks(execute=True):
        for game in three_games[:2]:
            services.do_request_review(game.pk, players[0])
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.ReviewRefused) as refused:
        services.do_request_review(three_games[2].pk, players[0])
    assert str(refused.value) == REFUSAL
    assert refused.value.code == "daily_limit"
    # Refused: nothing made, nothing sent.
    assert Review.objects.filter(user=players[0]).count() == 2
    assert len(sent_tasks) == 2
    # The other player has his own limit.
    services.do_request_review(three_games[2].pk, players[1])


def test_asking_again_for_a_review_already_made_is_not_counted(three_games, players, settings, sent_tasks):
    settings.REVIEWS_PER_DAY = 2
    first = services.do_request_review(three_games[0].pk, players[0])
    services.do_request_review(three_games[1].pk, players[0])
    # One review per game and person: asking again gives the same one, refused or not.
    assert services.do_request_review(three_games[0].pk, players[0]).pk == first.pk
    assert Review.objects.filter(game=three_games[0]).count() == 1


def test_the_limit_counts_the_last_24_hours(three_games, players, settings, sent_tasks):
    settings.REVIEWS_PER_DAY = 2
    for game in three_games[:2]:
        services.do_request_review(game.pk, players[0])
    Review.objects.filter(user=players[0]).update(requested_at=timezone.now() - timedelta(hours=23))
    with pytest.raises(services.ReviewRefused):
        services.do_request_review(three_games[2].pk, players[0])
    Review.objects.filter(user=players[0]).update(requested_at=timezone.now() - timedelta(hours=24, minutes=1))
    assert services.do_request_review(three_games[2].pk, players[0]).seat == 0


def test_zero_means_no_reviews(three_games, players, settings, sent_tasks):
    settings.REVIEWS_PER_DAY = 0
    with pytest.raises(services.ReviewRefused):
        services.do_request_review(three_games[0].pk, players[0])
    assert Review.objects.count() == 0


def test_the_panel_shows_the_refusal(client, three_games, players, settings, sent_tasks):
    settings.REVIEWS_PER_DAY = 2
    client.force_login(players[0])
    for game in three_games[:2]:
        response = client.post(reverse("reviews:request", kwargs={"game_id": game.pk}))
        assert response.status_code == 302
    url = reverse("reviews:request", kwargs={"game_id": three_games[2].pk})
    response = client.post(url)
    assert response.status_code == 429
    assert f'<p class="notice" role="alert">{REFUSAL}</p>' in response.content.decode()
    # htmx swaps the panel in with the refusal (it swaps no error answer).
    response = client.post(url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="review-panel"') and REFUSAL in html
    assert Review.objects.filter(game=three_games[2]).count() == 0
