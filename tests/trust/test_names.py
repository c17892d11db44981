"""Names: no guest look-alikes, no staff look-alikes, no near-copies of an existing name."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games import engine
from games.services import tables as table_services
from tests.support.games import make_user

pytestmark = pytest.mark.django_db

GUEST_NAME = "Имена вида «Гость-1234» оставлены для гостей: выберите другое имя."
STAFF_NAME = "Это имя оставлено для администрации сайта: выберите другое имя."
TAKEN = "Игрок с таким именем уже есть."


def sign_up(client, name: str):
    return client.post(
        reverse("games:signup"), {"username": name, "password1": "pw-secret-123x", "password2": "pw-secret-123x"}
    )


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
