"""Seating a round: the format object's seating of the eligible (tournaments.selectors.seating
reads who they are, their seeds and scores), drafts and the director's reseat.

A scheduled round is drafted (`draft_seating`) as soon as its field is known; the director may
edit and publish it; the start (`rounds.start_round`) seats it again if its field
changed meanwhile (`draft_is_stale`).
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .. import formats, notify, registry
from ..errors import TournamentRefused
from ..formats.seating import repeat_flags, repeat_pairs, score_flags
from ..models import Entrant, Round, RoundTable, Tournament
from ..selectors.seating import (
    draft_key,
    eligible_for_round,
    meetings_before,
    scores_of,
    seeded_ids,
)
from .base import current_round, locked_event
from .director import check_allowed, log_action, require_director

log = logging.getLogger(__name__)


def drop_ineligible(event: Tournament, round_: Round) -> None:
    """A director's seating made earlier: who withdrew since sits nowhere; a table left
    with one entrant makes him sit out (a bye)."""
    eligible = {e.pk for e in eligible_for_round(event, round_.number)} | registry.of(event).also_seated(
        event, round_.number
    )
    byes = [pk for pk in round_.byes if pk in eligible]
    for rt in round_.tables.all():
        present = [pk for pk in rt.entrants if pk in eligible]
        if present == rt.entrants:
            continue
        if len(present) >= 2 and not event.is_pairs:
            rt.entrants = present
            rt.save(update_fields=["entrants"])
        else:
            byes += present
            rt.delete()
    round_.byes = byes
    round_.save(update_fields=["byes"])


def users_to_seat(entrants: list[Entrant], event: Tournament) -> list:
    if event.is_pairs:
        first, second = entrants
        # Partners opposite: seats 0 and 2 one pair, 1 and 3 the other.
        return [first.pair.player_one, second.pair.player_one, first.pair.player_two, second.pair.player_two]
    return [e.user for e in entrants]


def seat_round(event: Tournament, number: int):
    """The seating of round `number` from the formats (None: fewer than two to seat)."""
    entrants = eligible_for_round(event, number)
    if len(entrants) < 2:
        return None
    ids, ratings = seeded_ids(event, entrants)
    if number == 1:
        fix_seeds(entrants, ids)
    return registry.of(event).seat_round(event, number, entrants, ids, ratings)


def fix_seeds(entrants: list[Entrant], ids: list[int]) -> None:
    """The seeds of the event (1 is the best), fixed at its start: a knockout's later
    rounds follow the bracket they made, not the ratings of the day."""
    for seed, pk in enumerate(ids, start=1):
        Entrant.objects.filter(pk=pk).update(seed=seed)
    for e in entrants:
        e.seed = ids.index(e.pk) + 1


def store_seating(round_: Round, seating) -> None:
    RoundTable.objects.filter(round=round_).delete()
    for i, table in enumerate(seating.tables, start=1):
        RoundTable.objects.create(round=round_, number=i, entrants=list(table))
    round_.byes = list(seating.byes)
    round_.flags = [list(f) if isinstance(f, tuple | list) else [None, str(f)] for f in (seating.flags or [])]
    round_.save(update_fields=["byes", "flags"])


def seating_of(event: Tournament, number: int, tables: list[list[int]], byes: list[int]) -> formats.Seating:
    """A seating made by hand, with the flags the formats give theirs: repeats (against the
    rounds before `number`) and, in a Swiss, who is pulled up or down by score."""
    met = meetings_before(event, number)
    pairs = repeat_pairs(tables, met)
    flags: list[tuple[int, str]] = [(pk, "bye") for pk in byes]
    if registry.of(event).seats_by_score and tables:
        scores = scores_of(event)
        flags += score_flags(tables, {pk: scores.get(pk, 0.0) for table in tables for pk in table})
    flags += repeat_flags(pairs)
    return formats.Seating(tables=tables, byes=list(byes), repeats=len(pairs), flags=flags)


def draft_seating(event: Tournament, round_: Round) -> None:
    """Seat a scheduled round now, as a draft: the director sees it, may edit and publish it;
    untouched, it is what the round starts with (recomputed if the field changed meanwhile)."""
    if round_.status != Round.Status.SCHEDULED:
        return
    RoundTable.objects.filter(round=round_).delete()  # (a round robin's field is not the old draft's)
    seating = seat_round(event, round_.number)
    if seating is None:  # fewer than two to seat: the start decides (cancel or finish)
        round_.byes, round_.flags = [], []
    else:
        store_seating(round_, seating)
    round_.drafted_for = draft_key(event, round_.number)
    round_.seated_by_director = False
    round_.published_at = None
    round_.save(update_fields=["byes", "flags", "drafted_for", "seated_by_director", "published_at"])


def seat_newcomers(event: Tournament, round_: Round) -> None:
    """Entrants who became eligible after the director edited the draft (late entrants):
    each to the emptiest table with a free seat; the rest together at new tables, one
    left alone sits out."""
    placed = {pk for rt in round_.tables.all() for pk in rt.entrants} | set(round_.byes)
    new = [e.pk for e in eligible_for_round(event, round_.number) if e.pk not in placed]
    if not new:
        return
    tables = list(round_.tables.order_by("number"))
    rest = []
    for pk in new:
        free = [] if event.is_pairs else [rt for rt in tables if len(rt.entrants) < event.entrants_per_table]
        if not free:
            rest.append(pk)
            continue
        rt = min(free, key=lambda t: (len(t.entrants), t.number))
        rt.entrants = [*rt.entrants, pk]
        rt.save(update_fields=["entrants"])
    number = max((rt.number for rt in tables), default=0)
    size = 2 if event.is_pairs else event.entrants_per_table
    while len(rest) >= 2:
        number += 1
        RoundTable.objects.create(round=round_, number=number, entrants=rest[:size])
        rest = rest[size:]
    if rest:
        round_.byes = [*round_.byes, *rest]
        round_.save(update_fields=["byes"])


def _draft_round_of(event: Tournament) -> Round:
    """The round a director's draft actions act on: round 1 before the start (made if
    missing), between rounds the scheduled next one."""
    if not event.is_under_way:
        round_, _created = Round.objects.get_or_create(
            tournament=event, number=1, defaults={"starts_at": event.starts_at}
        )
    else:
        round_ = current_round(event)
    if round_ is None or round_.status != Round.Status.SCHEDULED:
        raise TournamentRefused(_("No round is waiting to start: there is no draft to show."))
    return Round.objects.select_for_update(of=("self",)).get(pk=round_.pk)


def do_draft_round(*, tournament_id: int, by) -> Round:
    """The director's "preview": the waiting round's seating computed now (an edited draft
    is replaced by the automatic one)."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "reseat")
        round_ = _draft_round_of(event)
        draft_seating(event, round_)
        log_action(event, by, "draft", round=round_.number)
    notify.event_changed_on_commit(tournament_id)
    return round_


def do_publish_round(*, tournament_id: int, by) -> Round:
    """Show the waiting round's draft to the players (the start publishes it anyway)."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "reseat")
        round_ = _draft_round_of(event)
        if not round_.tables.exists():
            raise TournamentRefused(_("There is no seating to publish yet."))
        round_.published_at = timezone.now()
        round_.save(update_fields=["published_at"])
        log_action(event, by, "publish", round=round_.number)
    notify.event_changed_on_commit(tournament_id)
    return round_


def total_rounds(event: Tournament) -> int | None:
    """Rounds the event plays (None: until one is left, a knockout's)."""
    return registry.of(event).total_rounds(event)


def do_reseat_round(*, tournament_id: int, number: int, by, tables: list[list[int]]) -> Round:
    """The director seats a round that has not started: every eligible entrant
    once, tables of 2 up to the table size; the rest sit out (a bye)."""
    require_director(by)
    with transaction.atomic():
        event = locked_event(tournament_id)
        check_allowed(event, "reseat")
        round_ = Round.objects.select_for_update(of=("self",)).filter(tournament=event, number=number).first()
        if round_ is None:
            if number != 1 or event.is_under_way:
                raise TournamentRefused(_("That round is not scheduled."))
            round_ = Round.objects.create(tournament=event, number=1, starts_at=event.starts_at)
        if round_.status != Round.Status.SCHEDULED:
            raise TournamentRefused(_("That round has already started."))
        eligible = {e.pk for e in eligible_for_round(event, number)}
        seen = [pk for table in tables for pk in table]
        if len(seen) != len(set(seen)):
            raise TournamentRefused(_("An entrant sits at one table only."))
        if not set(seen) <= eligible:
            raise TournamentRefused(_("Only entrants who play this round can be seated."))
        if any(not 2 <= len(table) <= event.entrants_per_table for table in tables):
            raise TournamentRefused(_("Every table needs 2 to %(size)s entrants."), size=event.entrants_per_table)
        if event.is_pairs and any(len(table) != 2 for table in tables):
            raise TournamentRefused(_("Pairs play two at a table."))
        byes = sorted(eligible - set(seen))
        store_seating(round_, seating_of(event, number, [list(t) for t in tables], byes))
        round_.seated_by_director = True
        round_.published_at = None  # an edited draft is shown to the players once published again
        round_.drafted_for = draft_key(event, number)
        round_.save(update_fields=["seated_by_director", "published_at", "drafted_for"])
        log_action(event, by, "reseat", round=number, tables=[list(t) for t in tables])
    notify.event_changed_on_commit(tournament_id)
    return round_
