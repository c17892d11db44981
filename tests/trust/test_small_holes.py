"""The last small holes (issue 16, "What was seen" 7).

Before: `next` on an event's register, unregister and check-in redirected anywhere
(an open redirect) and a bare name like `x` was a server error (it was reversed as
a URL name); names beginning with `=`, `+`, `-` or `@` went into the CSV exports
raw (spreadsheet formula injection); a points table of `[1e999, 0]` or
`[Infinity, 0]` was a server error and `[true, false]` or a rising `[1, 2]` was
accepted.
"""

import csv
import io
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from tests.tournaments.helpers import make_event, play_round
from tests.tournaments.test_admin_forms import ADD, _admin_data, _with_defaults
from tournaments import services
from tournaments.models import Entrant, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def director(django_user_model):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(username="director")
    user.groups.add(Group.objects.get(name="Tournament directors"))
    return user


BAD_NEXT = ["https://evil.example/steal", "//evil.example/", "x", "javascript:alert(1)", "http:///evil.example"]


def _checkin_event():
    event = make_event(checkin_opens=timezone.now() - timedelta(minutes=1))
    services.do_advance_event(tournament_id=event.pk)
    return event


@pytest.mark.parametrize("bad", BAD_NEXT)
@pytest.mark.parametrize("action", ["register", "check-in", "unregister"])
def test_next_elsewhere_or_not_a_path_is_ignored(client, action, bad):
    user = get_user_model().objects.create_user(username="olga")
    event = _checkin_event()
    if action != "register":
        services.do_register(tournament_id=event.pk, user=user)
    client.force_login(user)
    response = client.post(f"/tournaments/{event.pk}/{action}/", {"next": bad})
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{event.pk}/"


def test_next_to_a_page_of_this_site_is_followed(client):
    user = get_user_model().objects.create_user(username="olga")
    event = make_event()
    client.force_login(user)
    response = client.post(f"/tournaments/{event.pk}/register/", {"next": "/tournaments/"})
    assert response["Location"] == "/tournaments/"
    assert Entrant.objects.filter(tournament=event, user=user).exists()


FORMULAS = ["=1+2", "+7 cmd", "-5+3", "@SUM", "\tTab", "\rCR"]


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(client):
    User = get_user_model()
    users = [User.objects.create_user(username=name) for name in FORMULAS[:4]]
    event = make_event(rounds=1)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now())
    services.do_advance_event(tournament_id=event.pk)
    play_round(event, 1)
    standings = list(
        csv.reader(io.StringIO(client.get(f"/tournaments/{event.pk}/standings.csv").content.decode("utf-8-sig")))
    )
    names = {row[2] for row in standings[1:]}  # after the rank and the start number (issue 18)
    assert names == {"'=1+2", "'+7 cmd", "'-5+3", "'@SUM"}
    games = list(csv.reader(io.StringIO(client.get(f"/tournaments/{event.pk}/games.csv").content.decode("utf-8-sig"))))
    assert {row[7] for row in games[1:]} == names
    for row in standings[1:] + games[1:]:
        for cell in row:
            assert not cell or cell[0] not in "=+-@\t\r" or cell.lstrip("-").replace(".", "").isdigit(), cell


def test_a_tab_or_carriage_return_first_is_neutralised_too():
    from tournaments.selectors import csv_cell

    assert [csv_cell(name) for name in FORMULAS] == [f"'{name}" for name in FORMULAS]
    assert csv_cell("Олег") == "Олег" and csv_cell(3) == 3 and csv_cell(-1.5) == -1.5  # numbers stay numbers


BAD_POINTS = [
    "[1e999, 0]",
    "[Infinity, 0]",
    "[-Infinity, 0]",
    "[NaN, 0]",
    "[true, false]",
    "[1, 2]",
    "[3, -1]",
    '["3"]',
]
POINTS_ERROR = "Очки за места — конечные неотрицательные числа, не растущие с местом, например [3, 2, 1, 0]."


def _director_data(points: str) -> dict:
    return {
        "name": "Кубок",
        "variant": "podkidnoy",
        "kind": "individual",
        "table_size": 4,
        "format": "swiss",
        "rounds": 3,
        "games_per_round": 1,
        "starts_at": "2030-01-01 19:00",
        "pause_between_rounds": "00:02:00",
        "no_show_grace": "00:02:00",
        "turn_seconds": 30,
        "points_table": points,
        "deck": 36,
        "first_bout_limit": 5,
        "throw_in": "all",
    }


@pytest.mark.parametrize("points", BAD_POINTS)
def test_a_bad_points_table_is_a_form_error_on_the_director_page(client, director, points):
    client.force_login(director)
    response = client.post("/tournaments/direct/", _director_data(points))
    assert response.status_code == 200
    assert POINTS_ERROR in response.content.decode()
    assert not Tournament.objects.filter(name="Кубок").exists()
    event = make_event(name="Уже есть", points_table=[3, 2, 1, 0])
    edit = client.post(f"/tournaments/{event.pk}/direct/", {"action": "edit", **_director_data(points)}, follow=True)
    assert edit.status_code == 200 and POINTS_ERROR in edit.content.decode()
    event.refresh_from_db()
    assert event.points_table == [3, 2, 1, 0]


@pytest.mark.parametrize("points", BAD_POINTS)
def test_a_bad_points_table_is_a_form_error_in_the_admin(admin_client, points):
    response = admin_client.post(ADD, _with_defaults(admin_client, _admin_data(points_table=points)))
    assert response.status_code == 200
    assert POINTS_ERROR in response.content.decode()
    assert not Tournament.objects.filter(name="Кубок четверга").exists()


@pytest.mark.parametrize(("points", "stored"), [("[3, 1.5, 1.5, 0]", [3, 1.5, 1.5, 0]), ("[]", []), ("", [])])
def test_a_good_points_table_is_kept(client, director, points, stored):
    client.force_login(director)
    assert client.post("/tournaments/direct/", _director_data(points)).status_code == 302
    assert Tournament.objects.get(name="Кубок").points_table == stored


@pytest.mark.parametrize("bad", BAD_NEXT)
def test_sign_up_ignores_a_next_that_is_not_a_path_of_this_site(client, bad):
    """The sign-up page reads `next` too: a bare "x" was reversed as a URL name (a 500)."""
    response = client.post(
        "/signup/",
        {"username": "masha", "password1": "a-long-secret-42", "password2": "a-long-secret-42", "next": bad},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert get_user_model().objects.filter(username="masha").exists()
