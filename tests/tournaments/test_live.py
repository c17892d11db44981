"""The live parts: the event socket and the player's "where to sit" socket."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from tests.support import sockets
from tournaments import services
from tournaments.models import Tournament

from .helpers import make_event, make_users

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def setup_event():
    users = make_users(4)
    event = make_event(rounds=1)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    return users, event


@database_sync_to_async
def start(event):
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    return services.do_advance_event(tournament_id=event.pk)


async def test_a_player_is_told_where_to_sit_and_the_event_page_updates():
    users, event = await setup_event()
    cookie = await sockets.session_cookie(users[0])
    seat_socket, accepted = await sockets.connect("/ws/tournaments/me/", cookie=cookie)
    assert accepted
    event_socket, accepted = await sockets.connect(f"/ws/tournaments/{event.pk}/", cookie=cookie)
    assert accepted
    first = await event_socket.receive_from(timeout=5)
    assert 'id="event-panel"' in first and "Тур 1" not in first
    assert await start(event) == ["registration opened", "round 1 started"]
    notice = await seat_socket.receive_from(timeout=5)
    assert 'id="tournament-notice"' in notice and "ваш стол — номер 1" in notice
    panel = await event_socket.receive_from(timeout=5)
    assert "Тур 1" in panel
    await seat_socket.disconnect()
    await event_socket.disconnect()


async def test_the_seat_socket_is_for_signed_in_players():
    communicator, accepted = await sockets.connect("/ws/tournaments/me/")
    assert not accepted
