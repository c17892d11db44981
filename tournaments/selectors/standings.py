"""The event's standings read from its results (tournaments.standings computes them): each
entrant's group, the seeds fixed at the start, the knockout's rounds reached, and the
event's tie-breaks (else its format's)."""

from __future__ import annotations

from .. import registry, standings
from ..models import Entrant, Result, Tournament
from . import seating


def standing_group(event: Tournament, entrant: Entrant, played: set[int]) -> str:
    """standings.GROUPS: withdrawn, disqualified; "absent" when check-in was required, the event has
    started and the entrant never checked in (and so never played); else "active"."""
    if entrant.state == Entrant.State.WITHDRAWN and entrant.arena_left_at is None:
        return "withdrawn"  # (who left an arena keeps his points and his place among the others, as on lichess)
    if entrant.state == Entrant.State.DISQUALIFIED:
        return "disqualified"
    started = event.started_at is not None or event.status in (*Tournament.UNDER_WAY, Tournament.Status.FINISHED)
    if event.checkin_opens is not None and started and not entrant.checked_in and entrant.pk not in played:
        return "absent"
    return "active"


def standings_of(event: Tournament) -> list[standings.Line]:
    """The event's standings (standings.compute): groups, the knockout's rounds reached, the seeds
    fixed at the start for the seed tie-break, and the event's tie-breaks (else its format's)."""
    entrants = list(event.entrants.exclude(state=Entrant.State.WAITING).order_by("registered_at", "pk"))
    rows = [
        {
            "entrant": r["entrant_id"],
            "round": r["round__number"],
            "table": r["round_table_id"],
            "points": r["points"],
            "durak": r["is_durak"],
            "game": r["game_number"],
            "place": r["place"],
        }
        for r in Result.objects.filter(round__tournament=event).values(
            "entrant_id", "round__number", "round_table_id", "points", "is_durak", "game_number", "place"
        )
    ]
    played = {row["entrant"] for row in rows}
    ratings = seating.entrant_ratings(event, entrants)  # shown only: the order reads the seeds frozen at the start
    return standings.compute(
        [e.pk for e in entrants],
        rows,
        ratings,
        groups={e.pk: standing_group(event, e, played) for e in entrants},
        seeds={e.pk: e.seed for e in entrants},
        eliminated=registry.of(event).rounds_reached(event, entrants),
        knockout=registry.of(event).knockout,
        tiebreaks=event_tiebreaks(event),
        event_key=event.pk,
    )


def event_tiebreaks(event: Tournament) -> list[str]:
    """The event's own order (checked when it is saved through a form), else its format's default;
    an order the forms would refuse (written around them) falls back to the default."""
    try:
        return standings.tiebreaks_for(event.format, event.tiebreaks)
    except ValueError:
        return standings.tiebreaks_for(event.format)
