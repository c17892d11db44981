"""The club rating per variant: the site's rating model (ratings.model, TrueSkill) with each
club one side of a result and its placing its rank, as the players are rated at a table.

`do_record_club_result(variant=, placings=, source=, source_id=)` records one result of clubs
(a battle, a match) once: `placings` are club ids ranked best first, tied clubs grouped in one
list (`[[3], [7, 9], [4]]`). A second call with the same (source, source_id) changes nothing and
returns the first record. Ties are rated as the players' are, every order of the tied equally
likely (`ratings.model.rate`), while that takes at most `MOST_TIE_RUNS` runs; a result tied more
intricately than that is rated once with its ties broken by the clubs' ids (rare: tied clubs in
groups of several different sizes at once).

Reads: `club_ladder(variant)` (established clubs ranked, provisional ones after them, as the
players' ladders), `ratings_of_club(club)`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from games.choices import Variant
from ratings import model as rating_model
from ratings.selectors import shown

from .errors import BattleRefused
from .models import ClubRating, ClubResult

MOST_TIE_RUNS = 12
SOURCE_LENGTH = 16


def _check(variant, placings, source, source_id) -> list[list[int]]:
    if variant not in Variant.values:
        raise BattleRefused(_("There is no such variant."))
    if not isinstance(source, str) or not source or len(source) > SOURCE_LENGTH:
        raise BattleRefused(_("A club result needs its source."))
    if isinstance(source_id, bool) or not isinstance(source_id, int) or source_id < 0:
        raise BattleRefused(_("A club result needs its source's number."))
    if not isinstance(placings, list | tuple) or not all(
        isinstance(group, list | tuple) and group for group in placings
    ):
        raise BattleRefused(_("Placings are lists of club ids, best first."))
    ids = [club for group in placings for club in group]
    if not all(isinstance(club, int) and not isinstance(club, bool) for club in ids):
        raise BattleRefused(_("Placings are lists of club ids, best first."))
    if len(set(ids)) != len(ids):
        raise BattleRefused(_("A club is placed only once in a result."))
    if len(ids) < 2:
        raise BattleRefused(_("A result of clubs needs at least two clubs."))
    if Club.objects.filter(pk__in=ids).count() != len(ids):
        raise BattleRefused(_("A club of this result does not exist."))
    return [list(group) for group in placings]


def _ranks(placings: list[list[int]]) -> tuple[list[int], list[int]]:
    """Clubs and their ranks (1 best, tied clubs one rank), ties broken by id past MOST_TIE_RUNS."""
    sizes = [len(group) for group in placings]
    clubs = [club for group in placings for club in sorted(group)]
    if math.lcm(*sizes) <= MOST_TIE_RUNS:
        ranks = [rank for rank, group in enumerate(placings, start=1) for _club in group]
    else:
        ranks = list(range(1, len(clubs) + 1))
    return clubs, ranks


@transaction.atomic
def do_record_club_result(*, variant: str, placings, source: str, source_id: int) -> ClubResult:
    """Rate one result of clubs, once per (source, source_id) (module docstring)."""
    known = ClubResult.objects.filter(source=source, source_id=source_id).first()
    if known is not None:
        return known
    placings = _check(variant, placings, source, source_id)
    clubs, ranks = _ranks(placings)
    for club_id in clubs:
        ClubRating.objects.get_or_create(
            club_id=club_id, variant=variant, defaults={"mu": rating_model.MU, "sigma": rating_model.SIGMA}
        )
    # Locked in id order: two results of the same clubs at once are rated one after the other.
    rows = {
        r.club_id: r
        for r in ClubRating.objects.select_for_update().filter(variant=variant, club_id__in=clubs).order_by("pk")
    }
    known = ClubResult.objects.filter(source=source, source_id=source_id).first()
    if known is not None:
        return known
    teams = [[(rows[club].mu, rows[club].sigma)] for club in clubs]
    rated = rating_model.rate(teams, ranks)
    changes = {}
    for club, (new,) in zip(clubs, rated, strict=True):
        row = rows[club]
        changes[str(club)] = [row.mu, row.sigma, new[0], new[1]]
        row.mu, row.sigma = new
        row.results += 1
        row.save(update_fields=["mu", "sigma", "results", "updated_at"])
    try:
        with transaction.atomic():
            return ClubResult.objects.create(
                source=source, source_id=source_id, variant=variant, placings=placings, changes=changes
            )
    except IntegrityError:
        raise BattleRefused(_("This result is being recorded already.")) from None


# ------------------------------------------------------------------ reads


@dataclass(frozen=True)
class ClubRatingRow:
    club: Club
    variant: str
    shown: str
    display: int
    provisional: bool
    results: int
    rank: int | None = None

    @property
    def label(self) -> str:
        return Variant(self.variant).label


def _row(rating: ClubRating, rank: int | None = None) -> ClubRatingRow:
    return ClubRatingRow(
        club=rating.club,
        variant=rating.variant,
        shown=shown(rating.mu, rating.sigma),
        display=rating_model.display_rating(rating.mu, rating.sigma),
        provisional=rating_model.is_provisional(rating.sigma),
        results=rating.results,
        rank=rank,
    )


def club_ladder(variant: str, limit: int = 200) -> list[ClubRatingRow]:
    """Established clubs by rating, numbered; provisional ones after them, unnumbered."""
    ratings = ClubRating.objects.filter(variant=variant, club__suspended_at__isnull=True).select_related("club")
    rows = sorted((_row(r) for r in ratings), key=lambda r: (r.provisional, -r.display, r.club.name))[:limit]
    numbered, rank = [], 0
    for row in rows:
        if row.provisional:
            numbered.append(row)
        else:
            rank += 1
            numbered.append(_row_with_rank(row, rank))
    return numbered


def _row_with_rank(row: ClubRatingRow, rank: int) -> ClubRatingRow:
    return ClubRatingRow(**{**row.__dict__, "rank": rank})


def ratings_of_club(club) -> list[ClubRatingRow]:
    """The club's rating in each variant it has one in (one query)."""
    return [_row(r) for r in ClubRating.objects.filter(club=club).select_related("club").order_by("variant")]
