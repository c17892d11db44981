"""Absurd values a person (or an attacker) can type get a clear error and change
nothing, never a server error: found by trying the pages by hand."""

import pytest

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

EVENT = {
    "name": "Кубок QA",
    "variant": "podkidnoy",
    "kind": "individual",
    "table_size": 2,
    "format": "swiss",
    "rounds": 2,
    "games_per_round": 1,
    "starts_at": "2030-01-01T19:00",
    "pause_between_rounds": "00:02:00",
    "turn_seconds": 30,
    "points_table": "[]",
    "deck": 36,
    "first_bout_limit": 5,
    "throw_in": "all",
}


def create(client, **changes):
    return client.post("/tournaments/direct/", {**EVENT, **changes})


def test_a_sensible_event_is_still_created(client, director):
    client.force_login(director)
    assert create(client).status_code == 302
    assert Tournament.objects.filter(name="Кубок QA").count() == 1


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        # Once a server error: the pause overflowed the database column.
        ("pause_between_rounds", "999999999 00:00:00", "Укажите продолжительность от 0 до 24 часов"),
        ("pause_between_rounds", "-1 00:00:00", "Укажите продолжительность от 0 до 24 часов"),
        ("round_time_limit", "-00:01:00", "Укажите продолжительность от 0 до 24 часов"),
        # Once a server error: year 1 in Moscow time is before year 1 in UTC.
        ("starts_at", "0001-01-01T00:00", "Укажите дату между 2000 и 2100 годом."),
        ("registration_opens", "9999-12-31T23:59", "Укажите дату между 2000 и 2100 годом."),
        # Once accepted (and too big for PostgreSQL's small integer).
        ("rounds", "99999999", "Убедитесь, что это значение меньше либо равно 100."),
        ("games_per_round", "500", "Убедитесь, что это значение меньше либо равно 20."),
        ("max_entrants", "99999999999", "Убедитесь, что это значение меньше либо равно 10000."),
    ],
)
def test_an_absurd_setup_gets_a_clear_error_and_creates_nothing(client, director, field, value, message):
    client.force_login(director)
    response = create(client, **{field: value})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(("field", "value"), [("rounds", "0"), ("table_size", "99"), ("games_per_round", "0")])
def test_a_number_out_of_range_names_no_database_constraint(client, director, field, value):
    """The error was 'Нарушено ограничение "at_least_one_round"': a database name, half English."""
    client.force_login(director)
    text = create(client, **{field: value}).content.decode()
    assert "Убедитесь, что это значение" in text
    assert "ограничение" not in text
    assert not Tournament.objects.exists()


def an_event():
    from datetime import timedelta

    from django.utils import timezone

    return Tournament.objects.create(
        name="Кубок QA",
        variant="podkidnoy",
        rules={},
        table_size=2,
        rounds=2,
        starts_at=timezone.now() + timedelta(hours=1),
    )


def messages_after(client, event, data):
    return client.post(f"/tournaments/{event.pk}/direct/", data, follow=True).content.decode()


@pytest.mark.parametrize("points", ["nan", "1e400", "-inf"])
def test_a_corrected_score_must_be_a_finite_number(client, director, points):
    """ "nan" was a server error (NaN into the database) and "1e400" stored an infinite score."""
    client.force_login(director)
    page = messages_after(client, an_event(), {"action": "correct", "result": "0", "points": points})
    assert "Очки — это число, например 1,5." in page


def test_a_refused_edit_names_the_fields_by_their_labels(client, director):
    """The message was "* rounds * ..." with the fields' code names, in English."""
    client.force_login(director)
    event = an_event()
    page = messages_after(
        client, event, {"action": "edit", **EVENT, "rounds": "0", "pause_between_rounds": "-1 00:00:00"}
    )
    assert "Туров: Убедитесь, что это значение больше либо равно 1." in page
    assert "Пауза между турами: Укажите продолжительность от 0 до 24 часов" in page
    assert "* rounds" not in page
    event.refresh_from_db()
    assert event.rounds == 2


def test_a_negative_count_gets_one_message_not_two(client, director):
    """-5 rounds got "больше либо равно 0" and "больше либо равно 1" together."""
    client.force_login(director)
    text = create(client, rounds="-5").content.decode()
    assert "Убедитесь, что это значение больше либо равно 1." in text
    assert "больше либо равно 0" not in text
