"""The club rating: the site's rating model with each club one side, recorded once per source
and id, refusing bad placings without writing, ties rated between the places they share, and
shown as the players' ratings are (a provisional one marked), with a ladder per variant."""

from __future__ import annotations

import pytest

from battles.club_rating import club_ladder, do_record_club_result, ratings_of_club
from battles.errors import BattleRefused
from battles.models import ClubRating, ClubResult
from ratings import model as rating_model
from tests.battles.helpers import club_with

pytestmark = pytest.mark.django_db


def clubs(count):
    return [club_with(f"c{i}", 0)[0] for i in range(count)]


def test_a_result_is_recorded_once_per_source_and_id():
    a, b = clubs(2)
    first = do_record_club_result(variant="podkidnoy", placings=[[a.pk], [b.pk]], source="match", source_id=7)
    again = do_record_club_result(variant="podkidnoy", placings=[[b.pk], [a.pk]], source="match", source_id=7)
    assert first.pk == again.pk and ClubResult.objects.count() == 1
    ratings = {r.club_id: r for r in ClubRating.objects.all()}
    assert ratings[a.pk].results == ratings[b.pk].results == 1
    assert ratings[a.pk].mu > rating_model.MU > ratings[b.pk].mu
    do_record_club_result(variant="podkidnoy", placings=[[a.pk], [b.pk]], source="battle", source_id=7)
    assert ClubResult.objects.count() == 2


def test_the_two_club_result_is_trueskill_of_two_sides():
    a, b = clubs(2)
    do_record_club_result(variant="perevodnoy", placings=[[a.pk], [b.pk]], source="match", source_id=1)
    expected = rating_model.rate([[(rating_model.MU, rating_model.SIGMA)]] * 2, [1, 2])
    rating = ClubRating.objects.get(club=a, variant="perevodnoy")
    assert (rating.mu, rating.sigma) == pytest.approx(expected[0][0])


def test_tied_clubs_end_between_the_places_they_share():
    a, b, c, d = clubs(4)
    do_record_club_result(variant="podkidnoy", placings=[[a.pk], [b.pk, c.pk], [d.pk]], source="battle", source_id=3)
    mu = dict(ClubRating.objects.values_list("club_id", "mu"))
    assert mu[b.pk] == pytest.approx(mu[c.pk])
    assert mu[a.pk] > mu[b.pk] > mu[d.pk]


@pytest.mark.parametrize(
    ("placings", "message"),
    [
        ("not a list", "Места — это списки номеров клубов, начиная с лучших."),
        ([[1], []], "Места — это списки номеров клубов, начиная с лучших."),
        ([["x"], [2]], "Места — это списки номеров клубов, начиная с лучших."),
        ([[1], [1]], "Клуб может занять в результате только одно место."),
        ([[1]], "В результате должно быть не меньше двух клубов."),
        ([[1], [999999]], "Одного из клубов этого результата нет."),
    ],
)
def test_bad_placings_are_refused_and_nothing_is_written(placings, message):
    (a,) = clubs(1)
    placings = (
        [[a.pk if club == 1 else club for club in group] for group in placings]
        if isinstance(placings, list)
        else placings
    )
    with pytest.raises(BattleRefused) as refused:
        do_record_club_result(variant="podkidnoy", placings=placings, source="match", source_id=1)
    assert str(refused.value) == message
    assert not ClubResult.objects.exists() and not ClubRating.objects.exists()


def test_an_unknown_variant_is_refused():
    a, b = clubs(2)
    with pytest.raises(BattleRefused) as refused:
        do_record_club_result(variant="chess", placings=[[a.pk], [b.pk]], source="match", source_id=1)
    assert str(refused.value) == "Такого варианта нет."
    assert not ClubRating.objects.exists()


def test_the_ladder_lists_established_clubs_ranked_and_provisional_ones_marked_after_them():
    a, b, c = clubs(3)
    ClubRating.objects.create(club=a, variant="podkidnoy", mu=30.0, sigma=2.0, results=40)
    ClubRating.objects.create(club=b, variant="podkidnoy", mu=40.0, sigma=7.0, results=1)
    ClubRating.objects.create(club=c, variant="podkidnoy", mu=26.0, sigma=2.5, results=30)
    rows = club_ladder("podkidnoy")
    assert [(row.club, row.rank, row.provisional) for row in rows] == [(a, 1, False), (c, 2, False), (b, None, True)]
    assert rows[2].shown.endswith("?") and not rows[0].shown.endswith("?")
    assert [r.variant for r in ratings_of_club(a)] == ["podkidnoy"]


def test_fifty_clubs_in_one_battle_are_rated():
    many = clubs(50)
    placings = (
        [[club.pk] for club in many[:20]] + [[club.pk for club in many[20:23]]] + [[club.pk] for club in many[23:]]
    )
    do_record_club_result(variant="podkidnoy", placings=placings, source="battle", source_id=50)
    mu = dict(ClubRating.objects.values_list("club_id", "mu"))
    assert len(mu) == 50 and mu[many[0].pk] > mu[many[-1].pk]
