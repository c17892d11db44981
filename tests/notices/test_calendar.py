"""Issue 18, point 4: iCalendar feeds of upcoming events (the club's and a player's private one),
parsed back with icalendar."""

from __future__ import annotations

import time
from datetime import timedelta
from unittest import mock

import icalendar
import pytest
from django.utils import timezone

from notices import tokens
from tournaments import services
from tournaments.models import Tournament

from .helpers import make_event, players

pytestmark = pytest.mark.django_db


def parse(response) -> dict:
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    cal = icalendar.Calendar.from_ical(response.content)
    return {str(item["summary"]): item for item in cal.walk("VEVENT")}


def test_issue18_club_feed_lists_upcoming_published_events_only(client):
    soon = (timezone.now() + timedelta(days=2)).replace(microsecond=0)  # iCalendar times are whole seconds
    listed = make_event(name="Кубок клуба", starts_at=soon, description="Приходите к семи.")
    make_event(name="Черновик", starts_at=soon, status=Tournament.Status.DRAFT)
    make_event(name="Прошедший", starts_at=soon - timedelta(days=9), status=Tournament.Status.FINISHED)
    make_event(name="Отменённый", starts_at=soon, status=Tournament.Status.CANCELLED)
    events = parse(client.get("/notices/calendar.ics"))
    assert list(events) == ["Кубок клуба"]
    item = events["Кубок клуба"]
    assert item.decoded("dtstart") == listed.starts_at
    assert item.decoded("dtend") == listed.starts_at + services.expected_duration(listed)
    assert str(item["url"]) == f"http://testserver/tournaments/{listed.pk}/"
    assert "Приходите к семи." in str(item["description"])
    assert str(item["uid"]) == f"tournament-{listed.pk}@testserver"


def test_issue18_player_feed_is_private_and_lists_his_events(client):
    anna, boris = players(2)
    mine = make_event(name="Мой турнир")
    make_event(name="Чужой турнир", starts_at=timezone.now() + timedelta(days=3))
    services.do_register(tournament_id=mine.pk, user=anna)
    token = tokens.calendar_token(anna.pk)
    feed = f"/notices/calendar/{token}.ics"
    assert list(parse(client.get(feed))) == ["Мой турнир"]
    assert list(parse(client.get(f"/notices/calendar/{tokens.calendar_token(boris.pk)}.ics"))) == []
    forged = feed.replace(token, f"{token.split(':')[0]}:forged")
    assert forged != feed
    assert client.get(forged).status_code == 404
    # the preferences page gives the player his feed's link
    client.force_login(anna)
    assert f"http://testserver{feed}" in client.get("/notices/preferences/").content.decode()


def test_issue18_calendar_link_stays_the_same_so_a_subscription_keeps_working():
    first = tokens.calendar_token(7)
    an_hour_later = time.time() + 3600
    with mock.patch("time.time", return_value=an_hour_later):
        assert tokens.calendar_token(7) == first
    assert tokens.read_calendar_token(first) == 7
