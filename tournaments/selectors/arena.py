"""Reads of an arena: its one round, whether its time is up, who is busy, free or in play,
each entrant's points, last table-mates and games as the scoring reads them."""

from __future__ import annotations

from collections import Counter

from django.db.models import Sum
from django.utils import timezone

from .. import formats
from ..models import Entrant, Result, Round, Tournament

ARENA_ROUND = 1  # the one round of an arena


def arena_round(event: Tournament) -> Round | None:
    return event.round_set.filter(number=ARENA_ROUND).first()


def is_over(event: Tournament, now=None) -> bool:
    """The arena's time is up: no game is dealt from now on."""
    ends_at = event.arena_ends_at
    return ends_at is not None and ends_at <= (now or timezone.now())


def busy_entrants(round_: Round) -> set[int]:
    """Entrants at a table whose game is not recorded yet."""
    return {pk for entrants in round_.tables.filter(done=False).values_list("entrants", flat=True) for pk in entrants}


def in_play(event: Tournament):
    """Entrants who may be seated: active, checked in (when the event has a check-in)."""
    entrants = event.entrants.filter(state=Entrant.State.ACTIVE)
    if event.checkin_opens is not None:
        entrants = entrants.filter(checked_in=True)
    return entrants


def free_entrants(event: Tournament, round_: Round) -> list[Entrant]:
    """Who the next pass may seat: in play, not paused, not at an unfinished table."""
    busy = busy_entrants(round_)
    entrants = in_play(event).filter(arena_paused=False).select_related("pair", "user").order_by("pk")
    return [e for e in entrants if e.pk not in busy]


def points_of(round_: Round, entrant_ids) -> dict[int, float]:
    rows = Result.objects.filter(round=round_, entrant_id__in=list(entrant_ids)).values("entrant_id")
    return {row["entrant_id"]: row["total"] for row in rows.annotate(total=Sum("points"))}


def last_mates(round_: Round, entrant_ids) -> dict[int, frozenset[int]]:
    """Each entrant's table-mates of his last recorded game."""
    wanted = set(entrant_ids)
    mates: dict[int, frozenset[int]] = {}
    for entrants in round_.tables.filter(done=True).order_by("-number").values_list("entrants", flat=True).iterator():
        for pk in wanted.intersection(entrants):
            mates[pk] = frozenset(entrants) - {pk}
        wanted -= set(entrants)
        if not wanted:
            break
    return mates


def arena_games(round_: Round, entrant_ids) -> dict[int, list[tuple[Result, formats.ArenaGame]]]:
    """Each entrant's recorded games in the order played, as the scoring reads them."""
    rows = list(
        Result.objects.filter(round=round_, entrant_id__in=list(entrant_ids), round_table__isnull=False)
        .select_related("round_table")
        .order_by("round_table__number")
    )
    tables = {r.round_table_id for r in rows}
    sharing = Counter(
        Result.objects.filter(round_table_id__in=tables).values_list("round_table_id", "place").iterator()
    )
    games: dict[int, list] = {pk: [] for pk in entrant_ids}
    for r in rows:
        games[r.entrant_id].append((r, _arena_game(r, sharing[r.round_table_id, r.place])))
    return games


def _arena_game(result: Result, shared: int) -> formats.ArenaGame:
    """A result as the scoring reads it. A game scores nothing when it was forfeited (absent),
    lost as the durak, or left (a seat that abandoned shares the last places and is counted
    durak: services.results._table_places), as in the round formats."""
    size = len(result.round_table.entrants)
    place = result.place or size
    nothing = result.absent or result.is_durak or place + shared - 1 > size
    return formats.ArenaGame(place=place, table_size=size, berserk=result.berserk, absent=nothing, shared=shared)


def scores_of(round_: Round, entrant_ids) -> dict[int, formats.ArenaScore]:
    return {pk: formats.arena_score([g for _r, g in games]) for pk, games in arena_games(round_, entrant_ids).items()}
