"""The admin's tournament pages, posted for real (issue 15, "What was seen" 1).

Before: the add and every change page refused to save ("Введите список значений." on
the start time), because the event form swapped the admin's split date and time
widget for one `datetime-local` input; and a member of "Tournament directors" who
is not staff could not enter the admin, so the group's permissions did nothing.
"""

from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from tournaments.models import Tournament

from .helpers import make_event

pytestmark = pytest.mark.django_db

ADD = "/admin/tournaments/tournament/add/"


def _admin_data(**overrides) -> dict:
    """What the admin's add page sends: split date and time inputs, the rules
    fields, and the empty entrants inline."""
    data = {
        "name": "Кубок четверга",
        "description": "Швейцарка на вечер",
        "variant": "perevodnoy",
        "kind": "individual",
        "table_size": "3",
        "format": "swiss",
        "rounds": "5",
        "games_per_round": "2",
        "registration_opens_0": "10.01.2030",
        "registration_opens_1": "12:00",
        "registration_closes_0": "",
        "registration_closes_1": "",
        "checkin_opens_0": "10.01.2030",
        "checkin_opens_1": "18:30",
        "checkin_closes_0": "",
        "checkin_closes_1": "",
        "starts_at_0": "10.01.2030",
        "starts_at_1": "19:00",
        "pause_between_rounds": "00:03:00",
        "round_time_limit": "",
        "turn_seconds": "30",
        "max_entrants": "24",
        "points_table": "[3, 1.5, 0]",
        "deck": "52",
        "first_bout_limit": "6",
        "throw_in": "neighbours",
        "trump_show_transfer": "on",
        "entrants-TOTAL_FORMS": "0",
        "entrants-INITIAL_FORMS": "0",
        "entrants-MIN_NUM_FORMS": "0",
        "entrants-MAX_NUM_FORMS": "1000",
        "_save": "Сохранить",
    }
    data.update(overrides)
    return data


def _with_defaults(client, data: dict) -> dict:
    """`data` plus the initial value of any field of the add form it does not name
    (a field added to the event later keeps these tests true)."""
    form = client.get(ADD).context["adminform"].form
    named = {key.rsplit("_", 1)[0] if key[-2:] in ("_0", "_1") else key for key in data}
    for name, field in form.fields.items():
        if name not in named and field.initial is not None:
            initial = field.initial() if callable(field.initial) else field.initial
            data[name] = "on" if initial is True else "" if initial is False else str(initial)
    return data


def _errors(response):
    """The admin form's and inlines' errors, for a failed assertion."""
    context = response.context or {}
    return (context.get("adminform") and context["adminform"].form.errors, context.get("inline_admin_formsets"))


def _moscow(*args) -> datetime:
    return timezone.make_aware(datetime(*args))


def test_the_admin_add_form_saves_an_event_with_its_rules(admin_client, admin_user):
    response = admin_client.post(ADD, _with_defaults(admin_client, _admin_data()))
    assert response.status_code == 302, _errors(response)
    event = Tournament.objects.get(name="Кубок четверга")
    assert event.starts_at == _moscow(2030, 1, 10, 19, 0)
    assert event.registration_opens == _moscow(2030, 1, 10, 12, 0)
    assert event.checkin_opens == _moscow(2030, 1, 10, 18, 30)
    assert event.registration_closes is None and event.checkin_closes is None
    assert (event.variant, event.table_size, event.rounds, event.games_per_round) == ("perevodnoy", 3, 5, 2)
    assert event.pause_between_rounds == timedelta(minutes=3) and event.max_entrants == 24
    assert event.points_table == [3, 1.5, 0]
    assert event.rules == {
        "deck": 52,
        "first_bout_limit": 6,
        "throw_in": "neighbours",
        "trump_show_transfer": True,
        "trump_six_swap": False,
    }
    assert event.created_by == admin_user


def test_the_admin_change_form_saves_new_values(admin_client):
    event = make_event(name="Среда", rules={"deck": 36, "first_bout_limit": 5, "throw_in": "all"})
    page = admin_client.get(f"/admin/tournaments/tournament/{event.pk}/change/").content.decode()
    assert 'name="starts_at_0"' in page and 'name="starts_at_1"' in page  # the admin's own widget
    response = admin_client.post(
        f"/admin/tournaments/tournament/{event.pk}/change/",
        _with_defaults(
            admin_client,
            _admin_data(name="Среда, новая", starts_at_0="11.01.2030", starts_at_1="20:15", trump_six_swap="on"),
        ),
    )
    assert response.status_code == 302, _errors(response)
    event.refresh_from_db()
    assert event.name == "Среда, новая"
    assert event.starts_at == _moscow(2030, 1, 11, 20, 15)
    assert event.rules["trump_six_swap"] is True and event.rules["deck"] == 52


def test_the_director_page_keeps_the_browser_date_picker(client, director):
    client.force_login(director)
    page = client.get("/tournaments/direct/").content.decode()
    assert 'type="datetime-local"' in page and 'name="starts_at"' in page


def test_the_admin_copy_action_copies_setup_and_rules(admin_client):
    event = make_event(name="Пятница", rules={"deck": 24, "first_bout_limit": 5, "throw_in": "all"}, rounds=3)
    response = admin_client.post(
        "/admin/tournaments/tournament/", {"action": "copy_for_next_week", "_selected_action": [event.pk]}, follow=True
    )
    assert "Скопировано: новые события начинаются на неделю позже." in response.content.decode()
    copy = Tournament.objects.exclude(pk=event.pk).get(name="Пятница")
    assert copy.rules == event.rules and copy.rounds == 3
    assert copy.starts_at - event.starts_at == timedelta(days=7)


def test_a_director_who_is_not_staff_uses_the_admin_event_pages(client, django_user_model):
    user = django_user_model.objects.create_user(username="vera", password="pw-secret-123")
    assert not user.is_staff
    user.groups.add(Group.objects.get(name="Tournament directors"))
    user.refresh_from_db()
    assert user.is_staff and not user.is_superuser
    client.force_login(user)
    assert client.get(ADD).status_code == 200
    response = client.post(ADD, _with_defaults(client, _admin_data(name="Кубок Веры")))
    assert response.status_code == 302, _errors(response)
    assert Tournament.objects.get(name="Кубок Веры").created_by == user
    assert client.get("/admin/auth/user/").status_code == 403


def test_a_director_added_from_the_group_side_becomes_staff_and_leaving_ends_it(django_user_model):
    user = django_user_model.objects.create_user(username="oleg")
    group = Group.objects.get(name="Tournament directors")
    group.user_set.add(user)
    user.refresh_from_db()
    assert user.is_staff
    group.user_set.remove(user)
    user.refresh_from_db()
    assert not user.is_staff  # staff only through the group: leaving it leaves the admin


def test_directors_put_in_the_group_without_the_signal_become_staff_at_migrate(django_user_model):
    from django.core.management import call_command

    user = django_user_model.objects.create_user(username="ivan")
    group = Group.objects.get(name="Tournament directors")
    django_user_model.groups.through.objects.create(user=user, group=group)  # as a bulk insert or fixture: no signal
    user.refresh_from_db()
    assert not user.is_staff
    call_command("migrate", verbosity=0)
    user.refresh_from_db()
    assert user.is_staff
