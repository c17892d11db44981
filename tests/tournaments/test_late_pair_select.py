"""The director adds a late pair by choosing it by name (issue 15, director's page;
seen: the late-entrant form of a pair event asked for a pair's number, which the
director cannot know). The select lists the active pairs not yet in the event."""

import html
import re

import pytest
from django.contrib.auth import get_user_model

from tournaments import selectors
from tournaments.models import Entrant, Pair, Tournament

from .helpers import make_event

pytestmark = pytest.mark.django_db


def _user(name: str):
    return get_user_model().objects.create_user(username=name)


def _pair(one, two, status=Pair.Status.ACTIVE) -> Pair:
    return Pair.objects.create(player_one=one, player_two=two, created_by=one, status=status)


def _pair_event(**kw) -> Tournament:
    return make_event(kind=Tournament.Kind.PAIRS, format=Tournament.Format.SWISS, table_size=4, **kw)


def late_options(page: str) -> list[tuple[str, str]]:
    form = re.search(r'value="late">(.*?)</form>', page, re.S)
    assert form is not None
    select = re.search(r'<select[^>]* name="pair"[^>]*>(.*?)</select>', form.group(1), re.S)
    assert select is not None, "a select of pairs, not a box for a number"
    options = re.findall(r'<option value="(\d+)"[^>]*>\s*([^<]*?)\s*</option>', select.group(1))
    return [(value, html.unescape(text)) for value, text in options]


def test_the_late_pair_is_chosen_by_name_among_the_active_pairs_not_yet_entered(client, director):
    oleg, zhanna, vera, ivan, lev, maria = (_user(n) for n in ("Олег", "Жанна", "Вера", "Иван", "Лев", "Мария"))
    entered = _pair(oleg, zhanna)
    free = _pair(vera, ivan)
    _pair(lev, maria, status=Pair.Status.INVITED)  # an invitation is not a pair yet
    _pair(zhanna, lev)  # Жанна is entered with Олег already
    event = _pair_event()
    Entrant.objects.create(tournament=event, pair=entered)
    assert selectors.pairs_to_enter(event) == [{"pk": free.pk, "name": "Вера & Иван"}]
    client.force_login(director)
    url = f"/tournaments/{event.pk}/direct/"
    assert late_options(client.get(url).content.decode()) == [(str(free.pk), "Вера & Иван")]
    answer = client.post(url, {"action": "late", "pair": free.pk}, follow=True)
    assert "Участник Вера &amp; Иван добавлен." in answer.content.decode()
    assert Entrant.objects.filter(tournament=event, pair=free).exists()
    assert late_options(client.get(url).content.decode()) == []


@pytest.mark.parametrize("value", ["первая", "1.5", "", "99999"])
def test_a_late_pair_value_that_is_not_a_pair_is_refused_not_a_server_error(client, director, value):
    free = _pair(_user("Вера"), _user("Иван"))
    event = _pair_event()
    client.force_login(director)
    answer = client.post(f"/tournaments/{event.pk}/direct/", {"action": "late", "pair": value}, follow=True)
    assert answer.status_code == 200
    expected = "Номер пары состоит только из цифр." if value in ("первая", "1.5") else "Выберите одну из активных пар."
    assert expected in answer.content.decode()
    assert not Entrant.objects.filter(tournament=event).exists()
    assert free.status == Pair.Status.ACTIVE
