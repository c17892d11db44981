"""Names: no guest look-alikes, no staff or bot look-alikes, no near-copies of an existing name.

Two names are the same when their keys are (NFKC, case folded, spaces collapsed);
every user's key is stored once in his profile, so the check is one indexed query
and the unique index settles two look-alikes signing up at the same moment."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import engine
from games.accounts.forms import SignUpForm
from games.models import Profile
from games.services import accounts
from games.services import tables as table_services
from tests.support.games import make_user

pytestmark = pytest.mark.django_db

GUEST_NAME = "Имена вида «Гость-1234» оставлены для гостей: выберите другое имя."
STAFF_NAME = "Это имя оставлено для администрации сайта: выберите другое имя."
BOT_NAME = "Имена вида «Бот 2» оставлены для ботов сайта: выберите другое имя."
TAKEN = "Игрок с таким именем уже есть."
PASSWORD = "pw-secret-123x"


def sign_up(client, name: str):
    return client.post(reverse("games:signup"), {"username": name, "password1": PASSWORD, "password2": PASSWORD})


def valid_form(name: str) -> SignUpForm:
    form = SignUpForm({"username": name, "password1": PASSWORD, "password2": PASSWORD})
    assert form.is_valid(), form.errors
    return form


def names() -> set[str]:
    return set(get_user_model().objects.values_list("username", flat=True))


@pytest.mark.parametrize("name", ["Гость-1234", "Guest-1234", "guest_77", "ГОСТЬ-0001", "Ｇｕｅｓｔ-1"])
def test_sign_up_refuses_the_guest_pattern(client, name):
    response = sign_up(client, name)
    assert GUEST_NAME in response.content.decode()
    assert names() == set()


@pytest.mark.parametrize(
    "name",
    ["admin", "Administrator", "ＡＤＭＩＮ", "moderator", "support_2", "root", "System", "Durak", "Админ", "дурак"],
)
def test_sign_up_refuses_staff_like_names(client, name):
    response = sign_up(client, name)
    assert STAFF_NAME in response.content.decode()
    assert names() == set()


@pytest.mark.parametrize("name", ["Alice", "ALICE", " alice ", "ａｌｉｃｅ", "alice\u3000"])
def test_sign_up_refuses_a_name_that_differs_only_by_case_spaces_or_unicode_form(client, name):
    make_user("alice")
    response = sign_up(client, name)
    assert TAKEN in response.content.decode()
    assert names() == {"alice"}


def test_ordinary_names_are_welcome(client):
    for name in ("alice", "Гостеприимный", "administrator_of_fun", "bob2"):
        assert sign_up(Client(), name).status_code == 302, name
    assert names() == {"alice", "Гостеприимный", "administrator_of_fun", "bob2"}


def test_a_guest_is_shown_in_the_viewers_language(players):
    guest = make_user("Гость-1234")
    english = make_user("Guest-5678")
    table = table_services.do_create_table(rules=engine.Rules(players=3), host=players[0])
    for user in (guest, english):
        table_services.do_join_table(table_id=table.pk, user=user)
    url = reverse("games:table", kwargs={"table_id": table.pk})
    page_en = Client(headers={"accept-language": "en"}).get(url).content.decode()
    assert "Guest-1234" in page_en and "Guest-5678" in page_en and "Гость" not in page_en
    page_ru = Client(headers={"accept-language": "ru"}).get(url).content.decode()
    assert "Гость-1234" in page_ru and "Гость-5678" in page_ru and "Guest-" not in page_ru
    lobby_en = Client(headers={"accept-language": "en"}).get(reverse("games:home")).content.decode()
    assert "Guest-1234" in lobby_en and "Гость-1234" not in lobby_en


@pytest.mark.parametrize("name", ["Бот2", "Bot_2", "бот-3", "BOT", "боты", "Ｂｏｔ7", "bots.12"])
def test_sign_up_refuses_a_bots_name_as_a_bots_name_not_a_staff_one(client, name):
    """Seats of bots are shown as «Бот 2» / "Bot 2": a person may not pass for one."""
    page = sign_up(client, name).content.decode()
    assert BOT_NAME in page and STAFF_NAME not in page
    assert names() == set()


@pytest.mark.parametrize("name", ["Бот 2", "Bot 2", "Бот: Сильный", "bot: medium"])
def test_a_bots_name_with_a_space_or_colon_is_refused_for_the_bots_too(name):
    # The sign-up form refuses spaces and colons before asking; the rule itself still knows them.
    with translation.override("ru"):
        assert str(accounts.username_refusal(name)) == BOT_NAME


def test_a_name_that_only_starts_like_bot_is_welcome():
    for name in ("Botvinnik", "Ботаник", "robot", "Abbot"):
        assert accounts.username_refusal(name) is None, name


def test_every_user_has_his_name_key_however_he_was_made():
    person = make_user("Ｍａｒｙ  Ann")
    guest = accounts.do_create_guest(prefix="Гость")
    assert Profile.objects.get(user=person).name_key == "mary ann"
    profile = Profile.objects.get(user=guest)
    assert profile.is_guest and profile.name_key == accounts.name_key(guest.username)


def test_a_renamed_user_is_checked_under_his_new_name():
    user = make_user("petya")
    user.username = "Vasya"
    user.save()
    assert Profile.objects.get(user=user).name_key == "vasya"
    with translation.override("ru"):
        assert str(accounts.username_refusal("VASYA")) == TAKEN
    assert accounts.username_refusal("petya") is None


def test_a_look_alike_made_outside_sign_up_is_kept_apart_not_refused():
    """The admin or code may make one (and old data had them): the later one's key carries his id."""
    first, second = make_user("alice"), make_user("Alice")
    assert Profile.objects.get(user=first).name_key == "alice"
    assert Profile.objects.get(user=second).name_key == f"alice#{second.pk}"


@pytest.mark.parametrize("club_size", [1, 40])
def test_the_name_check_is_one_query_however_many_players(django_assert_num_queries, club_size):
    for i in range(club_size):
        make_user(f"player_{i}")
    with django_assert_num_queries(1):
        assert accounts.username_refusal("newcomer") is None
    with django_assert_num_queries(1), translation.override("ru"):
        assert str(accounts.username_refusal("PLAYER_0")) == TAKEN


def test_two_look_alikes_signing_up_at_once_only_the_first_gets_the_name():
    """Both forms were checked before either was saved (two requests at the same
    moment): the unique key refuses the second with the usual message, and saves nothing."""
    first, second = valid_form("Petya"), valid_form("petya")
    accounts.do_sign_up(first)
    with pytest.raises(accounts.NameTaken) as refused, translation.override("ru"):
        accounts.do_sign_up(second)
    with translation.override("ru"):
        assert str(refused.value) == TAKEN
    assert names() == {"Petya"}
    assert Profile.objects.count() == 1


def test_the_sign_up_page_shows_the_refusal_when_a_look_alike_won_the_race(client, monkeypatch):
    make_user("strasse")  # "Straße" folds to it; Django's own case-insensitive check misses that
    monkeypatch.setattr("games.accounts.forms.username_refusal", lambda name: None)  # checked before he won
    page = sign_up(client, "Straße").content.decode()
    assert TAKEN in page
    assert names() == {"strasse"}
