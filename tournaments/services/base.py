"""What every part of the tournaments' services shares: the event's lock and a few reads.

`locked_event` is the lock everything that moves an event on takes (see the package's
docstring); `current_round` is read by the entries, the seating,
the results and the lifecycle alike, so they live below all of them.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from ..errors import TournamentRefused
from ..models import Round, Tournament


def locked_event(tournament_id: int) -> Tournament:
    event = Tournament.objects.select_for_update(of=("self",)).filter(pk=tournament_id).first()
    if event is None:
        raise TournamentRefused(_("There is no such event."))
    return event


def current_round(event: Tournament) -> Round | None:
    return event.round_set.order_by("-number").first()
