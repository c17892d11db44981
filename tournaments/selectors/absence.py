"""Reads of absences: how many rounds an entrant forfeited by absence, and the director's
absence and adjudication tables (tournaments.absence holds the writes)."""

from __future__ import annotations

from games import selectors as game_selectors

from ..models import Result, Round, Tournament
from .names import entrant_names


def absences(entrant_id: int) -> int:
    """Rounds in which the entrant forfeited by absence."""
    return Result.objects.filter(entrant_id=entrant_id, absent=True).values("round_id").distinct().count()


def absence_rows(event: Tournament) -> list[dict]:
    """Entrants with an absence, for the director's page: name, count, state, kept."""
    names = entrant_names(event)
    counts: dict[int, set] = {}
    for entrant_id, round_id in Result.objects.filter(round__tournament=event, absent=True).values_list(
        "entrant_id", "round_id"
    ):
        counts.setdefault(entrant_id, set()).add(round_id)
    rows = []
    for entrant in event.entrants.filter(pk__in=list(counts)).order_by("registered_at", "pk"):
        rows.append(
            {
                "entrant": entrant,
                "name": names.get(entrant.pk, ""),
                "absences": len(counts[entrant.pk]),
                "may_keep": not entrant.kept,
            }
        )
    return rows


def adjudicable_tables(event: Tournament) -> list[dict]:
    """The tables of the round being played whose game is still on: number, entrants by name."""
    round_ = event.round_set.filter(status=Round.Status.PLAYING).order_by("-number").first()
    if round_ is None:
        return []
    names = entrant_names(event)
    tables = list(round_.tables.filter(done=False, table__isnull=False).order_by("number"))
    playing = game_selectors.tables_playing(rt.table_id for rt in tables)
    rows = []
    for rt in tables:
        if rt.table_id not in playing:
            continue
        size = len(rt.entrants)
        rows.append(
            {
                "round_table": rt,
                "round": round_.number,
                "entrants": [{"pk": pk, "name": names.get(pk, ""), "place": i} for i, pk in enumerate(rt.entrants, 1)],
                "places": list(range(1, size + 1)),
            }
        )
    return rows
