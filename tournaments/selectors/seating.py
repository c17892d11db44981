"""Reads of the seating: who is eligible for a round, the seeds by rating, the rounds before
(who met whom), the scores so far, and whether a draft is stale. The seating services and the
format objects seat from these; the director's draft page shows them."""

from __future__ import annotations

import logging

from .. import formats, registry
from ..models import Entrant, Result, Round, Tournament

log = logging.getLogger(__name__)


def eligible_for_round(event: Tournament, number: int) -> list[Entrant]:
    entrants = event.entrants.filter(state=Entrant.State.ACTIVE, joined_round__lte=number, eliminated_in_round=None)
    if registry.of(event).requested_byes:
        entrants = entrants.exclude(requested_bye_round=number)  # asked to sit it out
    if event.checkin_opens is not None:
        entrants = entrants.filter(checked_in=True)
    return list(entrants.select_related("pair", "user").order_by("registered_at", "pk"))


def entrant_ratings(event: Tournament, entrants) -> dict[int, float]:
    """Entrant -> rating (a pair: its partners' mean); {} when ratings cannot be read."""
    from ratings.selectors import ratings_for

    user_ids = sorted({uid for e in entrants for uid in e.user_ids()})
    try:
        by_user = ratings_for(user_ids, event.variant)
    except Exception:  # seeding falls back to registration order
        log.exception("ratings unavailable for event %s", event.pk)
        return {}
    out = {}
    for e in entrants:
        values = [_number(by_user.get(uid)) for uid in e.user_ids()]
        values = [v for v in values if v is not None]
        if values:
            out[e.pk] = sum(values) / len(values)
    return out


def _number(value):
    if value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    for name in ("display", "rating", "value"):
        if hasattr(value, name):
            return _number(getattr(value, name))
    if isinstance(value, dict):
        for name in ("display", "rating", "value"):
            if name in value:
                return _number(value[name])
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def seeded_ids(event: Tournament, entrants) -> tuple[list[int], dict[int, float]]:
    """Entrant ids by rating (best first) when ratings exist, else by registration order."""
    ratings = entrant_ratings(event, entrants)
    order = {e.pk: i for i, e in enumerate(entrants)}
    ids = sorted(order, key=lambda pk: (-ratings.get(pk, float("-inf")) if ratings else 0, order[pk]))
    return ids, ratings


def history_before(event: Tournament, before: int) -> list[list[list[int]]]:
    history = []
    for round_ in event.round_set.filter(number__lt=before).order_by("number").prefetch_related("tables"):
        history.append([list(rt.entrants) for rt in round_.tables.all()])
    return history


def _scores(event: Tournament) -> dict[int, float]:
    scores: dict[int, float] = {}
    for entrant_id, points in Result.objects.filter(round__tournament=event).values_list("entrant_id", "points"):
        scores[entrant_id] = scores.get(entrant_id, 0.0) + points
    return scores


def eligible_entrants(event: Tournament, number: int) -> list[Entrant]:
    """Who plays round `number` if it started now (the draft's field)."""
    return eligible_for_round(event, number)


def meetings_before(event: Tournament, number: int) -> dict[int, dict[int, int]]:
    """Who shared a table with whom in the rounds before `number`."""
    return formats.meetings(history_before(event, number))


def scores_of(event: Tournament) -> dict[int, float]:
    """Each entrant's points so far (the scores a Swiss seats by)."""
    return _scores(event)


def draft_key(event: Tournament, number: int) -> list[list]:
    """What a draft was computed from: each eligible entrant with his score."""
    scores = _scores(event)
    return [
        [e.pk, round(scores.get(e.pk, 0.0), 6)] for e in sorted(eligible_for_round(event, number), key=lambda e: e.pk)
    ]


def draft_is_stale(event: Tournament, round_: Round) -> bool:
    """The field or the scores changed since the draft was computed (a withdrawal, a late
    entrant, a correction): an untouched draft is computed again at the start."""
    return draft_key(event, round_.number) != list(round_.drafted_for or [])
