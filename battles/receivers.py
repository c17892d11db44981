"""What the battles app hooks into other apps: the seating constraint of a battle's event
(clubmates apart), the club result when a battle's event finishes, and the club page's section."""

from __future__ import annotations

import logging

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

log = logging.getLogger(__name__)


def clubs_apart(event) -> dict[int, int]:
    from .selectors import clubs_apart as read

    return read(event)


def on_event_finished(sender=None, *, tournament_id: int, **kwargs):
    """Sent after the commit: a battle's clubs are rated once (idempotent on a repeat)."""
    from .services import do_record_battle_result

    do_record_battle_result(tournament_id=tournament_id)


def club_sections(request, club) -> list[str]:
    """On a club's page: its battles and its club rating (three queries whatever its size)."""
    from .club_rating import ratings_of_club
    from .selectors import battles_of_club

    context = {"club": club, "battles": battles_of_club(club), "ratings": ratings_of_club(club)}
    return [mark_safe(render_to_string("battles/partials/club_section.html", context, request=request))]
