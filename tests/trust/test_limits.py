"""Limits per person: waiting tables, table creation, guests and sign-ups per address; the chat's own limit."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from games import engine, limits
from games.errors import ChatRefused, TableRefused
from games.models import ChatMessage, Table
from games.services import chat
from games.services import tables as table_services

pytestmark = pytest.mark.django_db

NEW_TABLE = {
    "variant": "podkidnoy",
    "players": "2",
    "deck": "36",
    "first_bout_limit": "5",
    "throw_in": "all",
    "turn_seconds": "",
    "visibility": "public",
    "bot_level": "",
}
FOURTH_TABLE = "У вас уже 3 стола ждут игроков: начните игру или уйдите из одного, прежде чем открыть новый."
TOO_FAST = "Вы открываете столы слишком часто: подождите несколько минут."
TOO_MANY_GUESTS = "С вашего адреса пришло слишком много гостей: попробуйте позже или зарегистрируйтесь."
TOO_MANY_SIGNUPS = "С вашего адреса слишком много регистраций: попробуйте позже."


def open_tables(client, count: int):
    return [client.post(reverse("games:table-new"), NEW_TABLE) for _ in range(count)]


def test_a_fourth_waiting_table_is_refused(client, players):
    client.force_login(players[0])
    responses = open_tables(client, 4)
    assert [r.status_code for r in responses] == [302, 302, 302, 200]
    assert FOURTH_TABLE in responses[-1].content.decode()
    assert Table.objects.filter(host=players[0]).count() == 3
    # Others still open theirs: the limit is per person.
    client.force_login(players[1])
    assert open_tables(client, 1)[0].status_code == 302


def test_the_waiting_limit_is_the_services_rule_too(players, settings):
    settings.MAX_WAITING_TABLES = 1
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=players[0])
    with pytest.raises(TableRefused):
        table_services.do_create_table(rules=engine.Rules(players=2), host=players[0])
    # A table that has started no longer waits: the host may open another.
    table_services.do_join_table(table_id=table.pk, user=players[1])
    table_services.do_create_table(rules=engine.Rules(players=2), host=players[0])
    # Tables a tournament round opens have no host and are not limited.
    for _ in range(3):
        table_services.do_create_table(rules=engine.Rules(players=2), seat_users=players[2:4], start=True)


def test_opening_tables_has_a_rate(client, players, settings):
    settings.TABLE_CREATE_RATE = (2, 600)
    settings.MAX_WAITING_TABLES = 10
    client.force_login(players[0])
    responses = open_tables(client, 3)
    assert [r.status_code for r in responses] == [302, 302, 200]
    assert TOO_FAST in responses[-1].content.decode()
    assert Table.objects.count() == 2


def test_guests_per_address_have_a_rate(settings):
    settings.GUEST_CREATE_RATE = (2, 3600)
    for _ in range(2):
        browser = Client()
        browser.post(reverse("games:guest"))
        assert "_auth_user_id" in browser.session
    browser = Client()
    response = browser.post(reverse("games:guest"))
    assert response.headers["Location"] == reverse("games:home")
    assert [str(m) for m in get_messages(response.wsgi_request)] == [TOO_MANY_GUESTS]
    assert "_auth_user_id" not in browser.session
    assert get_user_model().objects.filter(profile__is_guest=True).count() == 2
    # Another address is not affected.
    other = Client(REMOTE_ADDR="10.0.0.7")
    other.post(reverse("games:guest"))
    assert "_auth_user_id" in other.session


def test_sign_ups_per_address_have_a_rate(settings):
    settings.SIGNUP_RATE = (1, 3600)
    form = {"password1": "pw-secret-123x", "password2": "pw-secret-123x"}
    assert Client().post(reverse("games:signup"), {"username": "ann", **form}).status_code == 302
    response = Client().post(reverse("games:signup"), {"username": "ben", **form})
    assert TOO_MANY_SIGNUPS in response.content.decode()
    assert set(get_user_model().objects.values_list("username", flat=True)) == {"ann"}


def test_the_rate_counter_counts_per_key_and_window(settings):
    assert [limits.hit("test", "a", (2, 60)) for _ in range(3)] == [True, True, False]
    assert limits.hit("test", "b", (2, 60))
    assert not limits.hit("test", "c", (0, 60))


def test_the_chat_keeps_its_own_rate(players):
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=players[0])
    for n in range(chat.CHAT_RATE_MESSAGES):
        chat.do_post_chat(table_id=table.pk, user=players[0], text=f"hello {n}")
    with pytest.raises(ChatRefused):
        chat.do_post_chat(table_id=table.pk, user=players[0], text="one too many")
    assert ChatMessage.objects.count() == chat.CHAT_RATE_MESSAGES
