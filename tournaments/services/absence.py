"""Absences counted below the registry: a round event withdraws an entrant at his
ABSENCES_TO_WITHDRAW-th absent round unless the director keeps him (tournaments.absence holds
the no-shows, keeping and adjudication; tournaments.selectors.absence the director's reads)."""

from __future__ import annotations

from ..models import Entrant, Tournament
from ..selectors.absence import absences

ABSENCES_TO_WITHDRAW = 2


def withdraw_the_absent(event: Tournament, entrant_ids, now) -> list[str]:
    done = []
    status = Tournament.objects.filter(pk=event.pk).values_list("status", flat=True).first()  # (a record may end it)
    if status not in Tournament.UNDER_WAY:  # an event over keeps its entrants as they finished
        return done
    for entrant in Entrant.objects.select_for_update(of=("self",)).filter(pk__in=list(entrant_ids)):
        if entrant.kept or not entrant.is_active or absences(entrant.pk) < ABSENCES_TO_WITHDRAW:
            continue
        entrant.state = Entrant.State.WITHDRAWN
        entrant.state_changed_at = now
        entrant.save(update_fields=["state", "state_changed_at"])
        done.append(f"entrant {entrant.pk} withdrawn after {ABSENCES_TO_WITHDRAW} absences")
    return done
