"""The event pages, the director's page and the exports, through the test client."""

import csv
import io
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services
from tournaments.models import Entrant, Pair, Result, Tournament

from .helpers import make_event, make_users, play_round

pytestmark = pytest.mark.django_db


def test_list_and_event_page_explain_the_scoring(client):
    event = make_event(name="Вечерний швейцарец")
    page = client.get("/tournaments/")
    assert page.status_code == 200 and "Вечерний швейцарец" in page.content.decode()
    text = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Очки за места:" in text
    assert "Пропуск тура (бай) приносит 1,5" in text or "Пропуск тура (бай) приносит 1.5" in text
    assert "Бухгольц" in text


def test_register_and_check_in_through_the_page(client):
    (user,) = make_users(1)
    event = make_event(checkin_opens=timezone.now() - timedelta(minutes=1))
    client.force_login(user)
    client.post(f"/tournaments/{event.pk}/register/")
    assert Entrant.objects.filter(tournament=event, user=user).exists()
    services.do_advance_event(tournament_id=event.pk)
    client.post(f"/tournaments/{event.pk}/check-in/")
    assert Entrant.objects.get(tournament=event, user=user).checked_in
    again = client.post(f"/tournaments/{event.pk}/register/", follow=True)
    assert "Вы уже записаны на это событие." in again.content.decode()


def test_the_round_shows_tables_and_the_players_own_table(client):
    users = make_users(4)
    event = make_event(rounds=1)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now())
    services.do_advance_event(tournament_id=event.pk)
    client.force_login(users[0])
    text = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Тур 1" in text and "ваш стол: играть" in text
    notice = client.get("/tournaments/my-seat/").content.decode()
    assert "ваш стол — номер 1" in notice


def test_the_director_page_is_for_directors_only(client, director):
    (player,) = make_users(1)
    event = make_event()
    client.force_login(player)
    assert client.get(f"/tournaments/{event.pk}/direct/").status_code == 403
    client.force_login(director)
    assert client.get(f"/tournaments/{event.pk}/direct/").status_code == 200
    client.post(f"/tournaments/{event.pk}/direct/", {"action": "announce", "text": "Начинаем через 5 минут"})
    assert [a.text for a in event.announcements.all()] == ["Начинаем через 5 минут"]


def test_the_director_page_offers_start_now_only_before_the_start(client, director):
    users = make_users(4)
    event = make_event(rounds=2, pause_between_rounds=timedelta(minutes=5))
    client.force_login(director)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert 'value="start"' in page and "Начать сейчас" in page
    assert 'name="points_table"' in page and 'placeholder="[3, 2, 1, 0]"' in page
    assert re.search(r'<input[^>]*name="points_table"[^>]*value="\[\]"', page) is None  # empty: the placeholder shows
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now())
    services.do_advance_event(tournament_id=event.pk)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert 'value="start"' not in page  # round 1 is being played
    play_round(event, 1)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert "Начать следующий тур сейчас" in page  # between rounds: the next one may start early
    Tournament.objects.filter(pk=event.pk).update(status=Tournament.Status.FINISHED)
    page = client.get(f"/tournaments/{event.pk}/direct/").content.decode()
    assert 'value="start"' not in page


def test_announcements_are_short_and_not_for_a_finished_event(client, director):
    event = make_event()
    client.force_login(director)
    response = client.post(f"/tournaments/{event.pk}/direct/", {"action": "announce", "text": "я" * 501}, follow=True)
    assert "В объявлении не больше 500 символов." in response.content.decode()
    assert not event.announcements.exists()
    client.post(f"/tournaments/{event.pk}/direct/", {"action": "announce", "text": "я" * 500})
    assert [a.text for a in event.announcements.all()] == ["я" * 500]
    Tournament.objects.filter(pk=event.pk).update(status=Tournament.Status.FINISHED)
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_announce(tournament_id=event.pk, by=director, text="Ещё партию?")
    assert str(refused.value) == "Событие завершено: сначала откройте его снова."
    assert [a.text for a in event.announcements.all()] == ["я" * 500]


def test_a_director_creates_an_event_without_being_a_superuser(client, director):
    client.force_login(director)
    response = client.post(
        "/tournaments/direct/",
        {
            "name": "Кубок среды",
            "variant": "podkidnoy",
            "kind": "individual",
            "table_size": 4,
            "format": "swiss",
            "rounds": 3,
            "games_per_round": 1,
            "starts_at": "2030-01-01 19:00",
            "pause_between_rounds": "00:02:00",
            "turn_seconds": 30,
            "points_table": "[]",
            "deck": 36,
            "first_bout_limit": 5,
            "throw_in": "all",
        },
    )
    assert response.status_code == 302
    assert Tournament.objects.get(name="Кубок среды").created_by == director
    assert not director.is_superuser


def test_csv_exports_of_standings_and_games(client):
    users = make_users(4)
    event = make_event(rounds=1)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now())
    services.do_advance_event(tournament_id=event.pk)
    play_round(event, 1)
    # The BOM first (issue 18, point 1): "utf-8-sig" reads it.
    standings = list(
        csv.reader(io.StringIO(client.get(f"/tournaments/{event.pk}/standings.csv").content.decode("utf-8-sig")))
    )
    assert standings[0][:12] == [
        "место", "стартовый номер", "имя", "очки",
        "Бухгольц", "Усечённый Бухгольц", "Зоннеборн — Бергер", "Раз в дураках", "Посев",
        "рейтинг", "баи", "статус",
    ]  # fmt: skip
    assert standings[0][12:] == ["тур 1: стол", "тур 1: соперники", "тур 1: место", "тур 1: очки"]
    # The state column speaks the same language, and after the finish it no longer says "playing" (issue #15, point 8).
    assert len(standings) == 5 and standings[1][11] == "турнир завершён"
    client.cookies["django_language"] = "en"
    english = list(
        csv.reader(io.StringIO(client.get(f"/tournaments/{event.pk}/standings.csv").content.decode("utf-8-sig")))
    )
    assert english[0][:12] == [
        "rank", "start number", "name", "points",
        "Buchholz", "Median Buchholz", "Sonneborn-Berger", "Durak finishes", "Seed",
        "rating", "byes", "state",
    ]  # fmt: skip
    assert english[1][11] == "finished"
    del client.cookies["django_language"]
    games = list(csv.reader(io.StringIO(client.get(f"/tournaments/{event.pk}/games.csv").content.decode("utf-8-sig"))))
    assert len(games) == 1 + Result.objects.filter(round__tournament=event).count() == 5
    assert "Кросстаблица" in client.get(f"/tournaments/{event.pk}/").content.decode()


def test_pairs_page_invite_and_accept(client):
    a, b = make_users(2)
    client.force_login(a)
    client.post("/tournaments/pairs/", {"partner": b.username})
    client.force_login(b)
    pair_id = b.pairs_as_second.get().pk
    response = client.post(f"/tournaments/pairs/{pair_id}/answer/", {"accept": "1"}, follow=True)
    assert b.pairs_as_second.get().status == "active"
    assert f"Пара с игроком {a.username} создана." in response.content.decode()
    assert client.get(f"/tournaments/pairs/{pair_id}/").status_code == 200


def test_the_admin_lists_events_and_copies_them(admin_client):
    event = make_event(name="Четверг")
    assert admin_client.get("/admin/tournaments/tournament/").status_code == 200
    assert admin_client.get(f"/admin/tournaments/tournament/{event.pk}/change/").status_code == 200
    admin_client.post(
        "/admin/tournaments/tournament/", {"action": "copy_for_next_week", "_selected_action": [event.pk]}
    )
    assert Tournament.objects.filter(name="Четверг").count() == 2


def test_a_pair_event_page_in_english(client):
    a, b = make_users(2)
    event = make_event(name="Pairs cup", kind=Tournament.Kind.PAIRS, format=Tournament.Format.ROUND_ROBIN)
    client.force_login(a)
    client.cookies["django_language"] = "en"
    text = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "pairs play 2v2 at tables of four, partners sitting opposite" in text
    assert "To enter, you need an active pair." in text and "Starts in" in text
    Pair.objects.create(player_one=a, player_two=b, created_by=a, status=Pair.Status.ACTIVE)
    text = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert '<select name="pair"' in text and "In a pair with the player" in text


def test_the_countdown_reads_as_a_clock_in_russian(client):
    event = make_event(starts_at=timezone.now() + timedelta(hours=2, minutes=5))
    text = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert re.search(r'Начало через <span class="clock">2:0[45]:\d\d</span>', text), "hours, minutes, seconds"
    assert "Очки за места: 3 / 2 / 1 / 0." in text
