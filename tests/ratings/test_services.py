"""What a game means to the ratings (R19-R21, R27), applied in order and exactly once."""

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from ratings import model, services
from ratings.models import PairRating, RatedGame, Rating, RatingChange
from tests.ratings.helpers import START, finished_game, people

pytestmark = pytest.mark.django_db


def standing(user, variant="podkidnoy"):
    row = Rating.objects.filter(user=user, variant=variant).first()
    return None if row is None else (row.mu, row.sigma, row.games)


def all_ratings():
    return sorted(
        Rating.objects.values_list("user_id", "variant", "mu", "sigma", "games", "last_played"),
    ), sorted(PairRating.objects.values_list("first_id", "second_id", "variant", "mu", "sigma", "games"))


def test_r27_a_rated_game_moves_its_players_by_their_places():
    anna, boris = people("anna", "boris")
    game = finished_game([(anna, 1), (boris, 2)])
    assert services.rate_game(game.pk) == 1
    assert standing(anna)[0] > model.MU > standing(boris)[0]
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert changes[anna.pk].mu_before == model.MU and changes[anna.pk].place == 1
    assert changes[anna.pk].delta > 0 > changes[boris.pk].delta
    for change in changes.values():  # the history keeps the numbers players saw
        assert change.display_before == model.display_rating(change.mu_before, change.sigma_before)
        assert change.display_after == model.display_rating(change.mu_after, change.sigma_after)


def test_r27_a_game_of_one_variant_never_moves_the_other():
    anna, boris = people("anna", "boris")
    services.rate_game(finished_game([(anna, 1), (boris, 2)], variant="perevodnoy").pk)
    assert standing(anna, "podkidnoy") is None
    assert standing(anna, "perevodnoy")[2] == 1
    services.rate_game(finished_game([(boris, 1), (anna, 2)], variant="podkidnoy").pk)
    assert standing(anna, "perevodnoy")[2] == 1


def test_unrated_games_and_games_with_bots_change_nothing():
    anna, boris = people("anna", "boris")
    unrated = finished_game([(anna, 1), (boris, 2)], rated=False)
    with_bot = finished_game([(anna, 1), ("medium", 2), (boris, 3)])
    assert services.rate_game(unrated.pk) == 0
    services.rate_game(with_bot.pk)
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_r19_r20_shared_places_and_draws_are_ties():
    anna, boris, vera = people("anna", "boris", "vera")
    services.rate_game(finished_game([(anna, 1), (boris, 1)]).pk)  # R20: a draw
    assert standing(anna) == standing(boris)
    assert standing(anna)[0] == pytest.approx(model.MU)
    dima, egor = people("dima", "egor")
    services.rate_game(finished_game([(vera, 1), (dima, 1), (egor, 3)]).pk)  # R19: shared first place
    assert standing(vera) == standing(dima)
    assert standing(vera)[0] > model.MU > standing(egor)[0]


def test_r21_partners_share_the_result_of_their_pair():
    anna, boris, vera, gleb = people("anna", "boris", "vera", "gleb")
    # Seats 0, 2 (anna, vera) against 1, 3 (boris, gleb). Anna left first, but her
    # partner vera is the durak: their pair loses, both move down.
    game = finished_game([(anna, 1), (boris, 2), (vera, 4), (gleb, 3)], partners=True)
    services.rate_game(game.pk)
    assert standing(anna)[0] < model.MU and standing(vera)[0] < model.MU
    assert standing(boris)[0] > model.MU and standing(gleb)[0] > model.MU
    assert standing(anna) == standing(vera)
    winners = PairRating.objects.get(first=boris, second=gleb)
    losers = PairRating.objects.get(first=anna, second=vera)
    assert winners.mu > model.MU > losers.mu
    assert winners.games == losers.games == 1


def test_a_seat_that_abandoned_counts_as_last():
    anna, boris, vera = people("anna", "boris", "vera")
    # Anna went on autopilot: her engine place 1 counts as 3 (GameSeat.counted_place).
    game = finished_game([(anna, 1), (boris, 2), (vera, 3)], abandoned=[0])
    services.rate_game(game.pk)
    assert standing(anna)[0] < model.MU
    assert RatingChange.objects.get(game=game, user=anna).place == 3


def test_applying_the_same_game_twice_changes_nothing():
    anna, boris = people("anna", "boris")
    game = finished_game([(anna, 1), (boris, 2)])
    services.rate_game(game.pk)
    before = all_ratings(), list(RatingChange.objects.values_list())
    assert services.rate_game(game.pk) == 0
    assert (all_ratings(), list(RatingChange.objects.values_list())) == before


def test_a_task_rates_the_earlier_finished_games_first():
    anna, boris = people("anna", "boris")
    first = finished_game([(anna, 1), (boris, 2)], minutes=1)
    second = finished_game([(boris, 1), (anna, 2)], minutes=2)
    third = finished_game([(anna, 1), (boris, 2)], minutes=3)
    # The message for the second game arrives first: it brings the variant up to it.
    assert services.rate_game(second.pk) == 2
    assert list(RatedGame.objects.order_by("seq").values_list("game_id", flat=True)) == [first.pk, second.pk]
    assert services.rate_game(first.pk) == 0
    assert services.rate_game(third.pk) == 1
    incremental = all_ratings()
    services.recompute("podkidnoy")
    assert all_ratings() == incremental


def test_a_game_that_finished_before_one_already_rated_rebuilds_the_order():
    anna, boris = people("anna", "boris")
    later = finished_game([(anna, 1), (boris, 2)], minutes=10)
    services.rate_game(later.pk)
    earlier = finished_game([(boris, 1), (anna, 2)], minutes=5)  # committed late
    services.rate_game(earlier.pk)
    assert list(RatedGame.objects.order_by("seq").values_list("game_id", flat=True)) == [earlier.pk, later.pk]
    incremental = all_ratings()
    services.recompute("podkidnoy")
    assert all_ratings() == incremental


def test_a_game_that_finishes_during_a_recomputation_is_applied_after_it(monkeypatch):
    """The games are read and rated before the lock is taken; a game finishing meanwhile
    is applied under the lock, after them, as its own task would."""
    anna, boris = people("anna", "boris")
    finished_game([(anna, 1), (boris, 2)], minutes=1)
    read = services._read_all
    late = []

    def read_then_a_game_finishes(variant):
        games = read(variant)
        late.append(finished_game([(boris, 1), (anna, 2)], minutes=2))
        return games

    monkeypatch.setattr(services, "_read_all", read_then_a_game_finishes)
    assert services.recompute("podkidnoy") == 2
    assert RatedGame.objects.get(game=late[0]).seq == 2
    monkeypatch.undo()
    during = all_ratings()
    services.recompute("podkidnoy")
    assert all_ratings() == during


def test_recompute_refuses_an_unknown_variant():
    with pytest.raises(ValueError):
        services.recompute("chess")


class RecomputationProperty(HypothesisTestCase):
    """A full recomputation gives exactly the ratings the incremental updates gave."""

    @given(
        games=st.lists(
            st.tuples(
                st.sampled_from(["podkidnoy", "perevodnoy"]),
                st.permutations(range(4)).map(list),
                st.integers(min_value=2, max_value=4),
                st.lists(st.integers(min_value=1, max_value=4), min_size=4, max_size=4),
                st.booleans(),
            ),
            min_size=1,
            max_size=8,
        ),
        message_order=st.randoms(use_true_random=False),
    )
    @settings(max_examples=25, deadline=None)
    def test_recomputation_equals_the_incremental_updates(self, games, message_order):
        players = people("p0", "p1", "p2", "p3")
        made = []
        for minute, (variant, order, size, places, partners) in enumerate(games):
            seated = [players[i] for i in order[:size]]
            partners = partners and size == 4
            if partners:
                loser_team = places[0] % 2
                seats = [(p, 4 if n % 2 == loser_team else 1) for n, p in enumerate(seated)]
            else:
                seats = [(p, places[n] if places[n] <= size else size) for n, p in enumerate(seated)]
            made.append(
                finished_game(seats, variant=variant, partners=partners, finished_at=START + timedelta(minutes=minute))
            )
        shuffled = made[:]
        message_order.shuffle(shuffled)
        for game in shuffled:  # messages arrive in any order, some twice
            services.rate_game(game.pk)
            services.rate_game(game.pk)
        incremental = all_ratings()
        history = sorted(RatingChange.objects.values_list("game_id", "user_id", "mu_after", "sigma_after", "seq"))
        for variant in services.VARIANTS:
            services.recompute(variant)
        assert all_ratings() == incremental
        assert sorted(RatingChange.objects.values_list("game_id", "user_id", "mu_after", "sigma_after", "seq")) == (
            history
        )
