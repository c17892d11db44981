"""An invitation to a private table whose last person left: the table is closed, the friends
page says the table is gone instead of offering a seat, and the invite link says so too."""

from __future__ import annotations

import pytest
from django.urls import reverse

from friends import services
from games import engine
from games.models import Table
from games.services import tables as table_services
from tests.support import games as support_games

pytestmark = pytest.mark.django_db

GONE = "Этого стола больше нет: все, кто за ним сидел, ушли."


@pytest.fixture
def invited(client):
    anna, boris = support_games.make_user("anna"), support_games.make_user("boris")
    services.do_follow(user=anna, other_id=boris.pk)
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=anna, is_private=True)
    services.do_invite(user=anna, friend_id=boris.pk)
    return anna, boris, table


def test_a_private_table_is_closed_when_its_last_person_leaves(invited):
    anna, _boris, table = invited
    table_services.do_leave_table(table_id=table.pk, user=anna)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


def test_the_invitation_says_the_table_is_gone_and_offers_no_seat(client, invited):
    anna, boris, table = invited
    table_services.do_leave_table(table_id=table.pk, user=anna)
    client.force_login(boris)
    friends = client.get(reverse("friends:index")).content.decode()
    link = reverse("games:table-invite", args=[table.invite_token])
    assert GONE in friends and link not in friends
    answer = client.get(link)
    assert answer.status_code == 410 and GONE in answer.content.decode()
    assert not table.seats.filter(user=boris).exists()


def test_an_invitation_to_a_table_still_open_offers_the_seat(client, invited):
    _anna, boris, table = invited
    client.force_login(boris)
    friends = client.get(reverse("friends:index")).content.decode()
    assert reverse("games:table-invite", args=[table.invite_token]) in friends and GONE not in friends
