"""Orientation (issue 15, "What was seen" 10): the table page of an event's game says
the event, the round and the table's number (the number the seat notice gives) and
links back; Russian messages do not depend on the person's gender; the engine's rule
errors reach a Russian director in Russian."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine
from games.services import tables as table_services
from tournaments import selectors, services, tasks
from tournaments.errors import TournamentRefused
from tournaments.models import Entrant, Pair, Round, RoundTable, Tournament

from .helpers import make_event, make_users

pytestmark = pytest.mark.django_db


def test_the_table_page_names_the_event_round_and_table_and_links_back(client):
    users = make_users(4, prefix="or")
    event = make_event(table_size=2, rounds=2, name="Вечерний швейцарец")
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    me = Entrant.objects.get(tournament=event, user=users[0])
    rt = next(rt for rt in RoundTable.objects.filter(round__tournament=event) if me.pk in rt.entrants)
    client.force_login(users[0])
    notice = client.get("/tournaments/my-seat/").content.decode()
    assert f"ваш стол — номер {rt.number}." in notice
    page = client.get(f"/table/{rt.table_id}/").content.decode()
    assert f"<title>Вечерний швейцарец: тур 1, стол {rt.number} — " in page, "not “Стол <database id>”"
    assert f"<strong>тур 1, стол {rt.number}</strong>" in page
    assert f'href="/tournaments/{event.pk}/">Вернуться к событию</a>' in page
    # A table of no event says nothing of events.
    plain = table_services.do_create_table(rules=engine.Rules(players=2), seat_users=users[:2], start=True)
    other = client.get(f"/table/{plain.pk}/").content.decode()
    assert "Вернуться к событию" not in other and f"Стол {plain.pk}" in other


def test_russian_messages_do_not_depend_on_the_persons_gender(client, django_user_model):
    """Seen: «Вы с Олег теперь пара», «Жанна: посажен», «Вера (дисквалифицирован)»."""
    oleg, vera = django_user_model.objects.create_user("Олег"), django_user_model.objects.create_user("Вера")
    services.do_invite_partner(user=oleg, partner=vera)
    pair = Pair.objects.get(player_one=oleg)
    client.force_login(vera)
    answer = client.post(f"/tournaments/pairs/{pair.pk}/answer/", {"accept": "1"}, follow=True)
    assert "Пара с игроком Олег создана." in answer.content.decode()
    assert str(Pair.Status.ACTIVE.label) == "действует"
    assert str(Entrant.State.DISQUALIFIED.label) == "дисквалификация"
    assert str(Entrant.State.WITHDRAWN.label) == "выбытие"
    event = make_event()
    round_ = Round(tournament=event, number=2, flags=[[7, "pulled_up"], [8, "pulled_down"], [9, "repeat"]])
    assert selectors.round_flags(round_, {7: "Жанна", 8: "Олег", 9: "Вера"}) == [
        "Жанна: стол, где очков больше, чем у участника",
        "Олег: стол, где очков меньше, чем у участника",
        "Вера: повторная встреча с соседом по столу",
    ]


def test_engine_rule_errors_are_shown_in_russian():
    """Seen: «A 24-card deck seats 2 to 4 players, not 6» inside a Russian message."""
    event = make_event(table_size=6, rules={"deck": 24})
    with pytest.raises(TournamentRefused) as refused:
        services.validate_event(event)
    assert str(refused.value) == "Эти правила недопустимы: Колода из 24 карт рассчитана на 2–4 игроков, а не на 6."
    event = make_event(table_size=2, rules={"deck": 36, "trump_show_transfer": True})
    with pytest.raises(TournamentRefused) as refused:
        services.validate_event(event)
    assert str(refused.value) == "Эти правила недопустимы: Перевод показом козыря бывает только в переводном дураке."
