"""The iCalendar feeds (RFC 5545, the icalendar package) of upcoming events."""

from __future__ import annotations

import icalendar
from django.utils import timezone


def feed(name: str, entries: list[dict], url_of, host: str) -> bytes:
    """A VCALENDAR of `entries` (selectors.club_calendar / player_calendar); `url_of(event)`
    is each event's page, `host` makes the UIDs unique to this site."""
    cal = icalendar.Calendar()
    cal.add("prodid", "-//Durak club//events//")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", name)
    stamp = timezone.now()
    for entry in entries:
        event = entry["event"]
        item = icalendar.Event()
        item.add("uid", f"tournament-{event.pk}@{host}")
        item.add("dtstamp", stamp)
        item.add("dtstart", event.starts_at)
        item.add("dtend", entry["ends_at"])
        item.add("summary", event.name)
        item.add("url", url_of(event))
        description = event.description.strip()
        item.add("description", f"{description}\n{url_of(event)}".strip())
        cal.add_component(item)
    return cal.to_ical()
