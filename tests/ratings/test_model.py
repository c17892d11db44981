"""ratings.model: the rating of one game (R27), as pure functions."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import model

mus = st.floats(min_value=10, max_value=40, allow_nan=False)
sigmas = st.floats(min_value=0.5, max_value=model.SIGMA, allow_nan=False)
ratings = st.tuples(mus, sigmas)


def test_the_model_is_chosen_by_one_constant():
    assert model.MODEL_NAME == "PlackettLuce"
    assert type(model.get_model()).__name__ == model.MODEL_NAME


def test_two_new_players_who_tie_stay_exactly_equal():
    # openskill.py issue 173: a 1v1 tie moved two equal players differently.
    (a,), (b,) = model.rate([[(model.MU, model.SIGMA)], [(model.MU, model.SIGMA)]], [1, 1])
    assert a == b
    assert a[0] == model.MU  # nobody won: the estimate does not move
    assert a[1] < model.SIGMA  # but the game taught us something


@given(rating=ratings, others=st.lists(ratings, min_size=0, max_size=4), data=st.data())
@settings(max_examples=150, deadline=None)
def test_equal_players_who_share_a_place_stay_exactly_equal(rating, others, data):
    """R19: leaving in the same bout shares the place: a tie, whoever else played."""
    shared = data.draw(st.integers(min_value=1, max_value=len(others) + 1))
    other_places = [data.draw(st.integers(min_value=1, max_value=len(others) + 2)) for _ in others]
    teams = [[rating], *[[o] for o in others], [rating]]
    ranks = [shared, *other_places, shared]
    result = model.rate(teams, ranks)
    assert result[0] == result[-1]


@given(n=st.integers(min_value=2, max_value=6), rating=ratings)
@settings(max_examples=50, deadline=None)
def test_a_draw_between_equal_players_is_symmetric(n, rating):
    """R20: nobody holds cards at the end: a draw, everyone the same."""
    result = model.rate([[rating] for _ in range(n)], [1] * n)
    assert all(r == result[0] for r in result)


@given(start=ratings, others=st.lists(ratings, min_size=0, max_size=3), data=st.data())
@settings(max_examples=200, deadline=None)
def test_a_better_place_never_gains_less_than_a_worse_one(start, others, data):
    """Two players with the same starting rating in one game: the better place
    (lower rank) ends at least as high, in mu and in the displayed rating."""
    better = data.draw(st.integers(min_value=1, max_value=5))
    worse = data.draw(st.integers(min_value=better, max_value=6))
    other_places = [data.draw(st.integers(min_value=1, max_value=6)) for _ in others]
    teams = [[start], [start], *[[o] for o in others]]
    result = model.rate(teams, [better, worse, *other_places])
    (mu_b, sigma_b), (mu_w, sigma_w) = result[0][0], result[1][0]
    assert mu_b >= mu_w
    assert model.display_rating(mu_b, sigma_b) >= model.display_rating(mu_w, sigma_w)


def test_a_tie_for_second_stays_between_first_and_third():
    # openskill.js issue 332: a third place ended above two tied second places.
    new = (model.MU, model.SIGMA)
    result = model.rate([[new], [new], [new], [new]], [1, 2, 2, 3])
    first, second_a, second_b, third = (r[0][0] for r in result)
    assert first > second_a == second_b > third


@given(team_a=st.tuples(ratings, ratings), team_b=st.tuples(ratings, ratings), a_wins=st.booleans())
@settings(max_examples=100, deadline=None)
def test_partners_move_in_the_same_direction(team_a, team_b, a_wins):
    """R21: the durak's pair loses; both partners share the result."""
    ranks = [1, 2] if a_wins else [2, 1]
    result = model.rate([list(team_a), list(team_b)], ranks)
    for team, new in zip((team_a, team_b), result, strict=True):
        moves = [new_mu - old_mu for (old_mu, _), (new_mu, _) in zip(team, new, strict=True)]
        assert all(m >= 0 for m in moves) or all(m <= 0 for m in moves)
    winners = result[0] if a_wins else result[1]
    old_winners = team_a if a_wins else team_b
    assert all(new[0] >= old[0] for new, old in zip(winners, old_winners, strict=True))


def test_the_result_does_not_depend_on_seat_order():
    teams = [[(27.0, 5.0)], [(22.0, 7.0)], [(25.0, 3.0)]]
    ranks = [2, 1, 2]
    forward = model.rate(teams, ranks)
    backward = model.rate(teams[::-1], ranks[::-1])
    assert forward == backward[::-1]


def test_bad_input_is_refused():
    for teams, ranks in [
        ([[(25, 8)]], [1]),
        ([[(25, 8)], [(25, 8)]], [1]),
        ([[(25, 8)], []], [1, 2]),
        ([[(25, 8)], [(25, -1)]], [1, 2]),
        ([[(25, 8)], [(math.nan, 1)]], [1, 2]),
    ]:
        try:
            model.rate(teams, ranks)
        except ValueError:
            continue
        raise AssertionError(f"accepted {teams} {ranks}")


def test_the_display_is_centred_on_1500():
    assert model.display_rating(model.MU, model.SETTLED_SIGMA) == 1500
    assert model.display_rating(model.MU + 1, model.SETTLED_SIGMA) > 1500
    # More doubt, lower conservative estimate.
    assert model.display_rating(model.MU, model.SIGMA) < 1500


def test_provisional_until_ten_games_and_a_settled_deviation():
    assert model.is_provisional(9, 2.0)
    assert model.is_provisional(30, model.SIGMA)
    assert not model.is_provisional(10, 2.0)


def test_chances_not_to_be_the_durak():
    new = (model.MU, model.SIGMA)
    assert model.chances_not_durak([[new], [new]]) == [0.5, 0.5]
    strong, weak = (35.0, 2.0), (15.0, 2.0)
    two = model.chances_not_durak([[strong], [weak]])
    assert two[0] > 0.9 > 0.1 > two[1]
    assert two == model.predict_win([[strong], [weak]])
    three = model.chances_not_durak([[strong], [new], [weak]])
    assert three[0] > three[1] > three[2]
    # Exactly one player is the durak: the chances of being him sum to one.
    assert math.isclose(sum(1 - c for c in three), 1.0)
    partners = model.chances_not_durak([[strong, new], [weak, new]])
    assert partners[0] > partners[1]


@given(
    teams=st.lists(st.tuples(ratings), min_size=2, max_size=6),
    data=st.data(),
)
@settings(max_examples=100, deadline=None)
def test_the_seats_never_change_the_result(teams, data):
    ranks = [data.draw(st.integers(min_value=1, max_value=len(teams))) for _ in teams]
    order = data.draw(st.permutations(range(len(teams))))
    straight = model.rate([list(t) for t in teams], ranks)
    shuffled = model.rate([list(teams[i]) for i in order], [ranks[i] for i in order])
    assert [shuffled[order.index(i)] for i in range(len(teams))] == straight
