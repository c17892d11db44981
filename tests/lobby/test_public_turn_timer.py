"""Issue 17, "Presence and leavers": a public table always has a turn timer (a stranger who
walks away cannot freeze it); a private table among friends may still play without one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import engine
from games.models import Table
from games.services import tables as table_services

from .test_lobby import BASE_FORM

pytestmark = pytest.mark.django_db


@pytest.fixture
def host_client(client, players):
    client.force_login(players[0])
    return client


def test_issue17_a_public_table_opened_without_a_timer_gets_the_default(host_client):
    host_client.post(reverse("games:table-new"), {**BASE_FORM, "visibility": "public", "turn_seconds": ""})
    assert Table.objects.get().turn_seconds == table_services.DEFAULT_PUBLIC_TURN_SECONDS == 30


def test_issue17_a_public_table_keeps_the_timer_chosen(host_client):
    host_client.post(reverse("games:table-new"), {**BASE_FORM, "visibility": "public", "turn_seconds": "15"})
    assert Table.objects.get().turn_seconds == 15


def test_issue17_a_private_table_may_choose_no_timer(host_client):
    host_client.post(reverse("games:table-new"), {**BASE_FORM, "visibility": "private", "turn_seconds": ""})
    assert Table.objects.get().turn_seconds is None


def test_issue17_the_service_gives_a_public_table_its_timer(players):
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=players[0])
    assert table.turn_seconds == table_services.DEFAULT_PUBLIC_TURN_SECONDS
    private = table_services.do_create_table(rules=engine.Rules(players=2), host=players[1], is_private=True)
    assert private.turn_seconds is None


def test_issue17_the_new_table_form_offers_the_default_timer(host_client):
    page = host_client.get(reverse("games:table-new")).content.decode()
    assert '<option value="30" selected>' in page
    assert "без таймера (только для закрытых столов)" in page
