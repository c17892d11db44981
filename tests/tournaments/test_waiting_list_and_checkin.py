"""Entry (issue 15, "What must work", Entry; "What was seen" 9, end: "withdraw and disqualify
have no confirmation and no undo"): a waiting list when the event is full (max_entrants), shown
with its positions and promoted when a place frees before the start; the director checks people
in and out by name; a public list of who has checked in; a requested bye for a round of a Swiss
event; withdraw and disqualify ask first and are undone by "reinstate". Messages in Russian."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import services, standings, tasks
from tournaments.errors import TournamentRefused
from tournaments.models import DirectorAction, Entrant, Result, Round, Tournament

from .helpers import make_event, make_users, play_round

pytestmark = pytest.mark.django_db


def event_url(event):
    return f"/tournaments/{event.pk}/"


def direct_url(event):
    return f"/tournaments/{event.pk}/direct/"


def start(event):
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    event.refresh_from_db()


@pytest.fixture
def nudged(monkeypatch):
    """The user ids the promotion nudged through notify's user-change message."""
    sent = []
    monkeypatch.setattr(services.notify, "user_changed_on_commit", sent.append)
    return sent


# ---------------------------------------------------------------- waiting list


def test_registration_past_the_cap_puts_the_player_on_the_waiting_list_with_his_position(client):
    """Entry: "a waiting list when the event is full" (today: "Мест больше нет." and nothing more)."""
    event = make_event(max_entrants=2)
    first, second, third, fourth = make_users(4)
    for user in (first, second):
        services.do_register(tournament_id=event.pk, user=user)
    client.force_login(third)
    answer = client.post(f"/tournaments/{event.pk}/register/", follow=True)
    assert "Мест больше нет: вы в листе ожидания, номер 1." in answer.text
    client.force_login(fourth)
    answer = client.post(f"/tournaments/{event.pk}/register/", follow=True)
    assert "Мест больше нет: вы в листе ожидания, номер 2." in answer.text
    assert "Лист ожидания" in answer.text and "Выйти из листа ожидания" in answer.text
    states = dict(event.entrants.values_list("user__username", "state"))
    assert states == {"p01": "active", "p02": "active", "p03": "waiting", "p04": "waiting"}
    # The waiting list holds no place: it is not in the standings.
    assert "p03" not in [line["name"] for line in services_standings(event)]


def services_standings(event):
    from tournaments import selectors

    return selectors.standings_table(event)


def test_a_place_freed_before_the_start_goes_to_the_first_on_the_list_who_is_nudged(client, nudged):
    event = make_event(max_entrants=2)
    first, second, third, fourth = make_users(4)
    for user in (first, second, third, fourth):
        services.do_register(tournament_id=event.pk, user=user)
    client.force_login(first)
    answer = client.post(f"/tournaments/{event.pk}/unregister/", follow=True)
    assert "Ваша заявка отозвана." in answer.text
    assert Entrant.objects.get(tournament=event, user=third).state == Entrant.State.ACTIVE
    assert Entrant.objects.get(tournament=event, user=fourth).state == Entrant.State.WAITING
    assert nudged == [third.pk]
    client.force_login(fourth)
    answer = client.get(event_url(event))
    assert "Мест больше нет: вы в листе ожидания, номер 1." in answer.text
    answer = client.post(f"/tournaments/{event.pk}/unregister/", follow=True)
    assert "Вы вышли из листа ожидания." in answer.text
    assert not event.entrants.filter(user=fourth).exists()


def test_a_withdrawal_by_the_director_before_the_start_promotes_the_first_waiting(director, nudged):
    event = make_event(max_entrants=2)
    users = make_users(3)
    entries = [services.do_register(tournament_id=event.pk, user=u) for u in users]
    services.do_withdraw(tournament_id=event.pk, entrant_id=entries[0].pk, by=director)
    entries[2].refresh_from_db()
    assert entries[2].state == Entrant.State.ACTIVE and nudged == [users[2].pk]


def test_the_waiting_list_never_plays_and_cannot_check_in():
    event = make_event(max_entrants=4, table_size=4)
    users = make_users(5)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(checkin_opens=timezone.now() - timedelta(minutes=1))
    with pytest.raises(TournamentRefused) as refused:
        services.do_check_in(tournament_id=event.pk, user=users[4])
    assert str(refused.value) == "Вы в листе ожидания: отметка — для тех, у кого есть место."
    for user in users[:4]:
        services.do_check_in(tournament_id=event.pk, user=user)
    start(event)
    seated = {pk for rt in Round.objects.get(tournament=event, number=1).tables.all() for pk in rt.entrants}
    waiting = Entrant.objects.get(tournament=event, user=users[4])
    assert waiting.pk not in seated and len(seated) == 4
    assert not Result.objects.filter(entrant=waiting).exists()


# ------------------------------------------------------------------ check-in


def test_the_director_checks_people_in_and_out_by_name_and_the_page_lists_who_checked_in(client, director):
    """Entry: "the director checks people in and out; a public list of who has checked in"."""
    event = make_event(checkin_opens=timezone.now() - timedelta(minutes=5))
    olga, ivan = make_users(2)
    entries = [services.do_register(tournament_id=event.pk, user=u) for u in (olga, ivan)]
    client.force_login(director)
    page = client.get(direct_url(event))
    assert "Отметиться" in page.text  # the check-in button on the entrant's row, by his name
    answer = client.post(direct_url(event), {"action": "check-in", "entrant": entries[0].pk}, follow=True)
    assert "Участник p01 отмечен." in answer.text
    answer = client.post(direct_url(event), {"action": "check-in", "entrant": entries[0].pk}, follow=True)
    assert "Участник p01 уже отмечен." in answer.text
    services.do_check_in(tournament_id=event.pk, user=ivan)
    public = client.get(event_url(event))
    assert "Отметились: 2" in public.text and "p01, p02" in public.text
    answer = client.post(direct_url(event), {"action": "check-out", "entrant": entries[1].pk}, follow=True)
    assert "С участника p02 снята отметка." in answer.text
    entries[1].refresh_from_db()
    assert not entries[1].checked_in
    public = client.get(event_url(event))
    assert "Отметились: 1" in public.text
    assert list(DirectorAction.objects.filter(tournament=event).values_list("action", flat=True)) == [
        "check_out",
        "check_in",
    ]


def test_the_director_cannot_check_in_an_entrant_of_another_event(client, director):
    event, other = make_event(), make_event(name="Другое")
    stranger = services.do_register(tournament_id=other.pk, user=make_users(1)[0])
    client.force_login(director)
    answer = client.post(direct_url(event), {"action": "check-in", "entrant": stranger.pk}, follow=True)
    assert "В этом событии нет такого участника." in answer.text
    stranger.refresh_from_db()
    assert not stranger.checked_in


# -------------------------------------------------------------- requested byes


def test_a_requested_bye_leaves_the_entrant_out_of_that_round_with_half_a_bye(client):
    """Entry: "requested byes for a round in advance"."""
    event = make_event(table_size=4, rounds=2)
    users = make_users(5)
    entries = [services.do_register(tournament_id=event.pk, user=u) for u in users]
    client.force_login(users[0])
    page = client.get(event_url(event))
    assert "Попросить пропуск" in page.text
    answer = client.post(f"/tournaments/{event.pk}/bye/", {"round": "1"}, follow=True)
    assert "Вы пропустите тур 1 (пропуск по просьбе)." in answer.text
    assert "Вы попросили пропустить тур 1." in answer.text
    start(event)
    round_one = Round.objects.get(tournament=event, number=1)
    seated = {pk for rt in round_one.tables.all() for pk in rt.entrants}
    assert entries[0].pk not in seated and seated == {e.pk for e in entries[1:]}
    bye = Result.objects.get(round=round_one, entrant=entries[0])
    expected = standings.bye_points(services.points_table(event)) / 2
    assert bye.is_bye and bye.points == expected == services.requested_bye_points(event)
    entries[0].refresh_from_db()
    assert entries[0].byes == 0  # not a bye of the seating: he may still get one later
    assert "Пропускают тур по своей просьбе: p01" in client.get(event_url(event)).text
    answer = client.post(f"/tournaments/{event.pk}/bye/", {"round": "2"}, follow=True)
    assert "Ваш пропуск по просьбе уже был в туре 1." in answer.text


def test_a_bye_request_is_refused_for_a_started_round_a_wrong_round_and_outside_swiss(client):
    event = make_event(table_size=2, rounds=2)
    users = make_users(2)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    client.force_login(users[0])
    answer = client.post(f"/tournaments/{event.pk}/bye/", {"round": "abc"}, follow=True)
    assert "Выберите тур этого события." in answer.text
    answer = client.post(f"/tournaments/{event.pk}/bye/", {"round": "3"}, follow=True)
    assert "Выберите тур этого события." in answer.text
    client.post(f"/tournaments/{event.pk}/bye/", {"round": "2"})
    answer = client.post(f"/tournaments/{event.pk}/bye/", {"cancel": "1"}, follow=True)
    assert "Просьба о пропуске тура отозвана." in answer.text
    start(event)
    answer = client.post(f"/tournaments/{event.pk}/bye/", {"round": "1"}, follow=True)
    assert "Тур 1 уже начался." in answer.text
    assert Entrant.objects.get(tournament=event, user=users[0]).requested_bye_round is None
    robin = make_event(name="Круг", format=Tournament.Format.ROUND_ROBIN)
    services.do_register(tournament_id=robin.pk, user=users[0])
    answer = client.post(f"/tournaments/{robin.pk}/bye/", {"round": "1"}, follow=True)
    assert "Пропуск тура можно попросить только в швейцарской системе." in answer.text


def test_the_rules_say_what_a_requested_bye_scores(client):
    event = make_event()
    page = client.get(event_url(event))
    points = services.requested_bye_points(event)
    shown = f"{points:g}".replace(".", ",")
    assert f"получает {shown} — половину очков за пропуск" in page.text


# ------------------------------------------------- confirmation and reinstate


def test_withdraw_and_disqualify_ask_first_and_change_nothing_until_confirmed(client, director):
    """Seen (point 9, end): "withdraw and disqualify have no confirmation and no undo"."""
    event = make_event()
    entrant = services.do_register(tournament_id=event.pk, user=make_users(1)[0])
    client.force_login(director)
    for action, question, button in (
        ("withdraw", "Снять участника с события?", "Да, снять"),
        ("disqualify", "Дисквалифицировать участника?", "Да, дисквалифицировать"),
    ):
        answer = client.post(direct_url(event), {"action": action, "entrant": entrant.pk})
        assert answer.status_code == 200 and question in answer.text and button in answer.text
        assert 'name="confirm" value="1"' in answer.text
        entrant.refresh_from_db()
        assert entrant.state == Entrant.State.ACTIVE
    answer = client.post(
        direct_url(event), {"action": "disqualify", "entrant": entrant.pk, "confirm": "1", "reason": "x"}, follow=True
    )
    assert "Участник p01 дисквалифицирован." in answer.text
    entrant.refresh_from_db()
    assert entrant.state == Entrant.State.DISQUALIFIED


def test_the_confirmation_step_finds_only_this_events_entrants(client, director):
    event, other = make_event(), make_event(name="Другое")
    stranger = services.do_register(tournament_id=other.pk, user=make_users(1)[0])
    client.force_login(director)
    answer = client.post(direct_url(event), {"action": "withdraw", "entrant": stranger.pk}, follow=True)
    assert "В этом событии нет такого участника." in answer.text


def test_a_withdrawn_entrant_is_reinstated_while_the_event_runs_and_plays_from_the_next_round(client, director):
    event = make_event(table_size=2, rounds=2)
    users = make_users(4)
    entries = [services.do_register(tournament_id=event.pk, user=u) for u in users]
    start(event)
    client.force_login(director)
    client.post(direct_url(event), {"action": "withdraw", "entrant": entries[0].pk, "confirm": "1"})
    entries[0].refresh_from_db()
    assert entries[0].state == Entrant.State.WITHDRAWN
    page = client.get(direct_url(event))
    assert "Вернуть" in page.text
    answer = client.post(direct_url(event), {"action": "reinstate", "entrant": entries[0].pk}, follow=True)
    assert "Участник p01 возвращён и играет снова со следующего тура." in answer.text
    entries[0].refresh_from_db()
    assert entries[0].state == Entrant.State.ACTIVE
    log = DirectorAction.objects.filter(tournament=event, action="reinstate").get()
    assert log.detail["was"] == "withdrawn" and log.by == director
    answer = client.post(direct_url(event), {"action": "reinstate", "entrant": entries[0].pk}, follow=True)
    assert "Вернуть можно только снятого или дисквалифицированного участника." in answer.text
    play_round(event, 1)
    tasks.sweep_events()
    round_two = Round.objects.get(tournament=event, number=2)
    assert entries[0].pk in {pk for rt in round_two.tables.all() for pk in rt.entrants}


def test_reinstate_before_the_start_needs_a_free_place(director):
    event = make_event(max_entrants=2)
    users = make_users(3)
    entries = [services.do_register(tournament_id=event.pk, user=u) for u in users]
    services.do_withdraw(tournament_id=event.pk, entrant_id=entries[0].pk, by=director)  # p03 takes the place
    with pytest.raises(TournamentRefused) as refused:
        services.do_reinstate(tournament_id=event.pk, entrant_id=entries[0].pk, by=director)
    assert str(refused.value) == "Мест больше нет: вернуть участника некуда."
    entries[0].refresh_from_db()
    assert entries[0].state == Entrant.State.WITHDRAWN


def test_raising_max_entrants_promotes_the_waiting_list(client, director, nudged):
    from .test_director_actions import form_data, local

    event = make_event(max_entrants=1)
    first, second = make_users(2)
    for user in (first, second):
        services.do_register(tournament_id=event.pk, user=user)
    client.force_login(director)
    data = form_data(action="edit", max_entrants=2, starts_at=local(timezone.now() + timedelta(hours=2)))
    answer = client.post(direct_url(event), data, follow=True)
    assert "Настройки сохранены." in answer.text
    assert Entrant.objects.get(tournament=event, user=second).state == Entrant.State.ACTIVE
    assert nudged == [second.pk]
