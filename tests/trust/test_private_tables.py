"""Private tables: a seat needs the invite (table ids are sequential, the token is not)."""

from __future__ import annotations

import html as html_lib

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from games import engine
from games.errors import TableRefused
from games.models import Table, TableSeat
from games.services import tables as table_services

pytestmark = pytest.mark.django_db

PRIVATE = "Это закрытый стол: сесть за него можно только по ссылке-приглашению."


def private_table(host, players=2):
    return table_services.do_create_table(rules=engine.Rules(players=players), host=host, is_private=True)


def join_url(table) -> str:
    return reverse("games:table-join", kwargs={"table_id": table.pk})


def invite_url(table) -> str:
    return reverse("games:table-invite", kwargs={"token": table.invite_token})


def messages_of(response) -> list[str]:
    """The messages this request added (earlier ones may still wait to be shown)."""
    return [str(m) for m in get_messages(response.wsgi_request)._queued_messages]


def seated(table) -> list:
    return list(TableSeat.objects.filter(table=table).order_by("number").values_list("user_id", flat=True))


def test_joining_a_private_table_by_its_number_is_refused(client, players):
    table = private_table(players[0])
    client.force_login(players[1])
    response = client.post(join_url(table), {"seat": "1"})
    assert messages_of(response) == [PRIVATE]
    assert seated(table) == [players[0].pk, None]
    table.refresh_from_db()
    assert table.status == Table.Status.WAITING  # no deal happened


def test_a_wrong_invite_token_is_refused(client, players):
    table = private_table(players[0])
    client.force_login(players[1])
    for token in ("nope", table.invite_token[:-1], "ё" * 16, ""):
        response = client.post(join_url(table), {"seat": "1", "invite": token})
        assert messages_of(response) == [PRIVATE]
    assert seated(table) == [players[0].pk, None]


def test_the_invite_link_lets_a_player_join(client, players):
    table = private_table(players[0])
    client.force_login(players[1])
    client.get(invite_url(table))
    response = client.post(join_url(table), {"seat": "1"})
    assert messages_of(response) == []
    assert seated(table) == [players[0].pk, players[1].pk]
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING  # a full table deals itself


def test_the_invite_followed_before_signing_in_still_counts(players):
    table = private_table(players[0])
    browser = Client()
    browser.get(invite_url(table))  # not signed in yet
    browser.post(reverse("games:login"), {"username": players[1].username, "password": "pw-secret-123"})
    browser.post(join_url(table), {"seat": "1"})
    assert seated(table) == [players[0].pk, players[1].pk]


def test_the_token_sent_with_the_form_lets_a_player_join(client, players):
    table = private_table(players[0])
    client.force_login(players[1])
    client.post(join_url(table), {"seat": "1", "invite": table.invite_token})
    assert seated(table) == [players[0].pk, players[1].pk]


def test_the_service_refuses_without_the_token(players):
    table = private_table(players[0], players=3)
    with pytest.raises(TableRefused) as refused:
        table_services.do_join_table(table_id=table.pk, user=players[1])
    assert str(refused.value) == PRIVATE
    table_services.do_join_table(table_id=table.pk, user=players[1], invite_token=table.invite_token)
    assert seated(table) == [players[0].pk, players[1].pk, None]


def test_public_tables_need_no_token(client, players):
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=players[0])
    client.force_login(players[1])
    client.post(join_url(table), {"seat": "1"})
    assert seated(table) == [players[0].pk, players[1].pk]


def test_the_host_sees_the_invite_link_with_a_copy_button(client, players):
    table = private_table(players[0])
    client.force_login(players[0])
    page = html_lib.unescape(client.get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode())
    link = "http://testserver" + invite_url(table)
    assert f'value="{link}"' in page
    assert 'data-copy-target="invite-link"' in page and "Копировать" in page

    # Others who may watch (an invited player) do not get the link: it is the host's to share.
    client.force_login(players[1])
    client.get(invite_url(table))
    page = client.get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()
    assert table.invite_token not in page and 'id="table-invite"' not in page


def test_a_public_table_shows_no_invite(client, players):
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=players[0])
    client.force_login(players[0])
    page = client.get(reverse("games:table", kwargs={"table_id": table.pk})).content.decode()
    assert 'id="table-invite"' not in page and table.invite_token not in page
