"""Entering events as real people do (issue 15, "What was seen" 9).

Before: a pair event asked for the pair's database id in a text box and a
non-numeric value was a server error (`int(pair_id)` in tournaments/views.py); a
director's late entrant typed in lower case was refused with "Войдите, чтобы
записываться на события."; a partner's name in another case was not found for
Cyrillic names on SQLite (`username__iexact` folds ASCII only there); and one
player could hold seats in two events running at the same time.
"""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tournaments import services
from tournaments.models import Entrant, Pair, Tournament

from .helpers import make_event

pytestmark = pytest.mark.django_db


def _user(name: str):
    return get_user_model().objects.create_user(username=name)


def _pair(one, two) -> Pair:
    return Pair.objects.create(player_one=one, player_two=two, created_by=one, status=Pair.Status.ACTIVE)


def _pair_event(**kw) -> Tournament:
    return make_event(kind=Tournament.Kind.PAIRS, format=Tournament.Format.ROUND_ROBIN, **kw)


def test_a_pair_event_offers_a_choice_of_my_active_pairs_by_partner_name(client):
    oleg, zhanna, vera, ivan = _user("Олег"), _user("Жанна"), _user("Вера"), _user("Иван")
    with_zhanna = _pair(oleg, zhanna)
    with_vera = _pair(vera, oleg)  # he was invited: still his pair
    Pair.objects.create(player_one=oleg, player_two=ivan, created_by=oleg, status=Pair.Status.INVITED)
    event = _pair_event()
    client.force_login(oleg)
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    select = re.search(r'<select name="pair"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None, "a select of pairs, not a box for an id"
    options = re.findall(r'<option value="(\d+)"[^>]*>\s*([^<]*?)\s*</option>', select.group(1))
    assert sorted(options) == sorted([(str(with_zhanna.pk), "Жанна"), (str(with_vera.pk), "Вера")])
    assert "В паре с игроком" in page
    assert "Иван" not in select.group(1)  # an invitation is not a pair yet
    client.post(f"/tournaments/{event.pk}/register/", {"pair": with_vera.pk})
    assert Entrant.objects.get(tournament=event).pair == with_vera


def test_a_pair_event_without_an_active_pair_says_how_to_get_one(client):
    (oleg,) = (_user("Олег"),)
    event = _pair_event()
    client.force_login(oleg)
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Чтобы записаться, нужна действующая пара." in page
    assert 'href="/tournaments/pairs/"' in page


@pytest.mark.parametrize("value", ["abc", "1.5", "-", "١٢"])
def test_a_pair_value_that_is_not_a_number_is_refused_not_a_server_error(client, value):
    oleg, zhanna = _user("Олег"), _user("Жанна")
    _pair(oleg, zhanna)
    event = _pair_event()
    client.force_login(oleg)
    response = client.post(f"/tournaments/{event.pk}/register/", {"pair": value}, follow=True)
    assert response.status_code == 200
    assert "Выберите одну из своих действующих пар." in response.content.decode()
    assert not Entrant.objects.filter(tournament=event).exists()


def test_the_director_adds_a_late_entrant_by_name_in_any_case(client, director):
    oleg = _user("Олег")
    event = make_event()
    client.force_login(director)
    client.post(f"/tournaments/{event.pk}/direct/", {"action": "late", "username": "  оЛЕГ "})
    assert Entrant.objects.get(tournament=event).user == oleg
    response = client.post(f"/tournaments/{event.pk}/direct/", {"action": "late", "username": "Нектоев"}, follow=True)
    assert "Такого игрока нет." in response.content.decode()
    assert "Войдите, чтобы записываться на события." not in response.content.decode()


def test_a_partner_is_found_by_name_in_any_case(client):
    oleg, zhanna = _user("Олег"), _user("Жанна")
    client.force_login(oleg)
    response = client.post("/tournaments/pairs/", {"partner": "ЖАННА"}, follow=True)
    assert "Приглашение отправлено." in response.content.decode()
    assert Pair.objects.get(player_one=oleg).player_two == zhanna


def test_one_player_cannot_hold_seats_in_two_events_at_once():
    (oleg,) = (_user("Олег"),)
    start = timezone.now() + timedelta(hours=2)
    evening = make_event(name="Вечер", starts_at=start, rounds=4)
    services.do_register(tournament_id=evening.pk, user=oleg)
    same_time = make_event(name="Параллель", starts_at=start + timedelta(minutes=30))
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_register(tournament_id=same_time.pk, user=oleg)
    assert str(refused.value) == (
        "Вы уже записаны на событие «Вечер», которое идёт в то же время: "
        "один игрок не может играть в двух событиях сразу."
    )
    earlier = make_event(name="Раньше", starts_at=start - timedelta(minutes=10), rounds=1)  # 15 minutes: into "Вечер"
    with pytest.raises(services.TournamentRefused):
        services.do_register(tournament_id=earlier.pk, user=oleg)
    assert not Entrant.objects.filter(tournament__in=[same_time, earlier]).exists()
    before = make_event(name="До", starts_at=start - timedelta(minutes=20), rounds=1)  # over at 15 minutes
    services.do_register(tournament_id=before.pk, user=oleg)
    next_day = make_event(name="Завтра", starts_at=start + timedelta(days=1))
    services.do_register(tournament_id=next_day.pk, user=oleg)  # no overlap: accepted


def test_an_event_that_is_over_holds_no_seat():
    (oleg,) = (_user("Олег"),)
    start = timezone.now() + timedelta(hours=2)
    cancelled = make_event(name="Отменён", starts_at=start)
    services.do_register(tournament_id=cancelled.pk, user=oleg)
    Tournament.objects.filter(pk=cancelled.pk).update(status=Tournament.Status.CANCELLED)
    services.do_register(tournament_id=make_event(starts_at=start).pk, user=oleg)


def test_a_pair_cannot_enter_while_a_member_plays_elsewhere_at_that_time():
    oleg, zhanna = _user("Олег"), _user("Жанна")
    pair = _pair(oleg, zhanna)
    start = timezone.now() + timedelta(hours=2)
    solo = make_event(name="Одиночки", starts_at=start)
    services.do_register(tournament_id=solo.pk, user=zhanna)
    pairs = _pair_event(name="Пары", starts_at=start + timedelta(minutes=10))
    with pytest.raises(services.TournamentRefused) as refused:
        services.do_register(tournament_id=pairs.pk, user=oleg, pair_id=pair.pk)
    assert str(refused.value).startswith("Игрок Жанна уже записан на событие «Одиночки», которое идёт в то же время")


def test_the_director_gets_a_clear_answer_for_a_late_pair_that_is_not_a_number(client, director):
    oleg = _user("Олег")
    event = _pair_event()
    client.force_login(director)
    response = client.post(
        f"/tournaments/{event.pk}/direct/", {"action": "late", "username": oleg.username, "pair": "первая"}, follow=True
    )
    assert "Номер пары состоит только из цифр." in response.content.decode()
    assert not Entrant.objects.filter(tournament=event).exists()
