"""Battle pages: the list, a new battle, a battle's page (its board, the clubs and their status,
the tie rule, the event's standings link), answering and entering by form, the board as CSV and
on paper, the club ladder, and the club page's section."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from battles import services
from battles.models import Battle, BattleClub, BattlePlayer, ClubRating
from clubs import extensions as club_extensions
from tests.battles.helpers import club_with, make_battle

pytestmark = pytest.mark.django_db


@pytest.fixture
def battle():
    a, a_owner, a_people = club_with("alpha", 2)
    b, b_owner, b_people = club_with("beta", 2)
    battle = make_battle(a, a_owner, [b], top_k=2)
    return battle, (a, a_owner, a_people), (b, b_owner, b_people)


def test_the_battle_page_shows_the_clubs_their_status_the_tie_rule_and_the_standings_link(client, battle):
    battle, (a, _o, _p), (b, _bo, _bp) = battle
    page = client.get(reverse("battles:battle", args=[battle.pk])).content.decode()
    assert "Битва клубов" in page and "Клуб alpha" in page and "Клуб beta" in page
    assert "(приглашён)" in page
    assert "Клубы с равным счётом выше ставит больше очков у их лучшего игрока" in page
    assert reverse("tournaments:event", args=[battle.tournament_id]) in page
    assert f'ws-connect="/ws/battles/{battle.pk}/"' in page


def test_the_invited_clubs_leader_accepts_by_the_form_and_a_member_enters(client, battle):
    battle, (a, _o, _p), (b, b_owner, b_people) = battle
    client.force_login(b_owner)
    page = client.get(reverse("battles:battle", args=[battle.pk])).content.decode()
    assert "«Клуб beta» приглашён:" in page
    response = client.post(reverse("battles:answer", args=[battle.pk, b.pk]), {"answer": "accept"}, follow=True)
    assert "Ваш клуб участвует в битве." in response.content.decode()
    assert BattleClub.objects.get(battle=battle, club=b).status == "accepted"
    client.force_login(b_people[1])
    response = client.post(reverse("battles:enter", args=[battle.pk]), {"club": b.pk}, follow=True)
    assert "Вы играете за свой клуб в этой битве." in response.content.decode()
    assert "Вы играете за «Клуб beta»." in response.content.decode()
    assert BattlePlayer.objects.filter(battle=battle, club=b, user=b_people[1]).exists()


def test_a_refused_entry_says_why_on_the_page(client, battle):
    battle, (a, _o, _p), (b, _bo, b_people) = battle
    client.force_login(b_people[1])
    response = client.post(reverse("battles:enter", args=[battle.pk]), {"club": a.pk}, follow=True)
    assert "Играть можно только за клуб, в котором вы состоите." in response.content.decode()
    assert not BattlePlayer.objects.exists()


def test_a_leader_creates_a_battle_by_the_form(client):
    a, a_owner, _ = club_with("alpha", 0)
    club_with("beta", 0)
    client.force_login(a_owner)
    assert "Новая битва" in client.get(reverse("battles:list")).content.decode()
    starts = (timezone.localtime() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    response = client.post(
        reverse("battles:new"),
        {
            "club": a.pk,
            "name": "Весенняя битва",
            "variant": "podkidnoy",
            "format": "swiss",
            "table_size": 4,
            "top_k": 5,
            "starts_at": starts,
            "rounds": 4,
            "invited": "beta",
        },
    )
    battle = Battle.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("battles:battle", args=[battle.pk])
    assert battle.tournament.name == "Весенняя битва" and battle.tournament.rounds == 4 and battle.top_k == 5
    assert list(battle.clubs.values_list("club__slug", "status")) == [("alpha", "accepted"), ("beta", "invited")]


def test_an_unknown_club_address_is_refused_by_the_form(client):
    a, a_owner, _ = club_with("alpha", 0)
    client.force_login(a_owner)
    starts = (timezone.localtime() + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    data = {"club": a.pk, "name": "Битва", "variant": "podkidnoy", "format": "arena", "table_size": 4, "top_k": 3}
    response = client.post(
        reverse("battles:new"), {**data, "starts_at": starts, "arena_minutes": 30, "invited": "nope"}
    )
    assert "Нет клуба с адресом nope." in response.content.decode()
    assert not Battle.objects.exists()


def test_the_board_exports_as_csv_and_prints(client, battle):
    battle, (a, _o, a_people), _b = battle
    services.do_enter(a_people[1], battle_id=battle.pk, club_id=a.pk)
    response = client.get(reverse("battles:board-csv", args=[battle.pk]))
    text = response.content.decode("utf-8-sig")
    assert response["Content-Type"] == "text/csv"
    assert text.splitlines()[0] == "место,клуб,состояние,счёт,игроков,игроки в зачёте"
    assert text.splitlines()[1:] == ["1,Клуб alpha,участвует,0,1,alpha-00 (0)", ",Клуб beta,приглашён,,,"]
    page = client.get(reverse("battles:print", args=[battle.pk])).content.decode()
    assert "Табло битвы" in page and "Клуб alpha" in page


def test_the_list_and_the_ladder(client, battle):
    battle, (a, _o, _p), (b, _bo, _bp) = battle
    assert "Битва клубов" in client.get(reverse("battles:list")).content.decode()
    ClubRating.objects.create(club=a, variant="podkidnoy", mu=30.0, sigma=2.0, results=30)
    ClubRating.objects.create(club=b, variant="podkidnoy", mu=25.0, sigma=8.0, results=1)
    page = client.get(reverse("battles:ladder")).content.decode()
    assert "Рейтинг клубов" in page and "Клуб alpha" in page
    assert "?</td>" in page  # beta is provisional
    assert "Ни у одного клуба" in client.get(reverse("battles:ladder") + "?variant=perevodnoy").content.decode()


def test_the_club_page_section_shows_its_battles_and_rating(battle):
    battle, (a, _o, _p), _b = battle
    ClubRating.objects.create(club=a, variant="podkidnoy", mu=30.0, sigma=2.0, results=30)
    request = RequestFactory().get("/")
    html = "".join(club_extensions.club_sections(request, a))
    assert "Битвы клубов" in html and "Рейтинг клуба:" in html and "Битва клубов" in html


def test_the_list_shows_a_leader_the_invitations_he_may_answer(client, battle):
    battle, _a, (b, b_owner, b_people) = battle
    client.force_login(b_owner)
    assert "«Клуб alpha» приглашает «Клуб beta»" in client.get(reverse("battles:list")).content.decode()
    client.force_login(b_people[1])
    assert "Приглашения ваших клубов" not in client.get(reverse("battles:list")).content.decode()


def test_the_new_battle_page_is_for_leaders_who_run_events(client):
    a, a_owner, people = club_with("alpha", 1)
    client.force_login(people[1])
    response = client.get(reverse("battles:new"), follow=True)
    assert "Битвы создаёт руководитель клуба с правом проводить турниры." in response.content.decode()
    client.force_login(a_owner)
    page = client.get(reverse("battles:new")).content.decode()
    assert "Клуб-организатор" in page and "Клуб alpha" in page
