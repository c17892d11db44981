"""The live parts: the event socket and the player's "where to sit" socket."""

import re
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone

from tests.support import sockets
from tournaments import services, tasks
from tournaments.models import Entrant, RoundTable, Tournament

from .helpers import latest_game, make_event, make_users, play_game

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


async def test_the_forms_of_the_panel_the_socket_sends_carry_the_viewers_csrf_token():
    """The socket replaces the page's panel at once: its "Enter" form must still post."""
    (user,) = await database_sync_to_async(make_users)(1)
    event = await database_sync_to_async(make_event)()
    cookie = await sockets.session_cookie(user)
    secret = "a" * 16 + "B" * 16  # the browser's CSRF cookie (an unmasked secret)
    header = (b"cookie", f"sessionid={cookie}; csrftoken={secret}".encode())
    event_socket, accepted = await sockets.connect(f"/ws/tournaments/{event.pk}/", headers=[header])
    assert accepted
    panel = await event_socket.receive_from(timeout=5)
    await event_socket.disconnect()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', panel).group(1)
    assert token != secret, "masked, as a page's own token is"

    @database_sync_to_async
    def post_the_form():
        client = Client(enforce_csrf_checks=True)
        client.force_login(user)
        client.cookies["csrftoken"] = secret
        response = client.post(f"/tournaments/{event.pk}/register/", {"csrfmiddlewaretoken": token})
        return response.status_code, Entrant.objects.filter(tournament=event, user=user).exists()

    assert await post_the_form() == (302, True)


async def test_the_notice_goes_away_when_the_players_table_is_done():
    users, event = await setup_event()
    await start(event)
    cookie = await sockets.session_cookie(users[0])
    seat_socket, accepted = await sockets.connect("/ws/tournaments/me/", cookie=cookie)
    assert accepted

    @database_sync_to_async
    def play_the_round():
        rt = RoundTable.objects.get(round__tournament=event)
        tasks.record_game(play_game(latest_game(rt.table_id)).pk)

    await play_the_round()
    notice = await seat_socket.receive_from(timeout=5)
    assert 'id="tournament-notice"' in notice and "ваш стол" not in notice
    await seat_socket.disconnect()
