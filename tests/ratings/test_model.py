"""ratings.model: the rating of one game (R27), as pure functions."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ratings import model

mus = st.floats(min_value=10, max_value=40, allow_nan=False)
sigmas = st.floats(min_value=0.5, max_value=model.SIGMA, allow_nan=False)
ratings = st.tuples(mus, sigmas)


def test_the_model_is_the_measured_winner_built_in_one_place():
    # docs/ratings.md ("The wider study"): BradleyTerryFull with beta = 12.5 (3 x openskill's default 25/6).
    assert model.MODEL_NAME == "BradleyTerryFull"
    built = model.get_model()
    assert type(built).__name__ == "BradleyTerryFull"
    assert (built.mu, built.sigma, built.beta) == (25.0, 25.0 / 3.0, 12.5)
    assert model.get_model() is built  # built once
    # The study's "as the site rates it" rows get the same parameters for every model.
    assert model.get_model("PlackettLuce").beta == model.BETA


def test_one_game_is_exactly_the_library_result_when_nobody_ties():
    from openskill.models import BradleyTerryFull

    library = BradleyTerryFull(mu=25.0, sigma=25.0 / 3.0, beta=model.BETA)
    teams = [[(27.0, 6.0)], [(22.0, 7.5), (30.0, 5.0)], [(25.0, 8.0)]]
    ranks = [2, 3, 1]
    expected = library.rate([[library.rating(mu=m, sigma=s) for m, s in t] for t in teams], ranks=ranks)
    assert model.rate(teams, ranks) == [[(r.mu, r.sigma) for r in t] for t in expected]


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
    # An average player (mu 25) with a regular's deviation (after ~100 games) reads 1500.
    assert model.display_rating(model.MU, model.SETTLED_SIGMA) == 1500
    assert model.display_rating(model.MU + 1, model.SETTLED_SIGMA) > 1500
    # More doubt, lower conservative estimate: a newcomer starts below (1375 with beta 12.5).
    assert 1350 < model.display_rating(model.MU, model.SIGMA) < 1500


def test_400_points_read_as_10_to_1_odds_as_in_elo():
    """Two settled players 400 display points apart: the stronger finishes ahead 10 times out of 11
    (up to the players' own doubt, which the Elo formula ignores)."""
    mu_gap = 400 / model.DISPLAY_ALPHA
    assert 40 < mu_gap < 41  # about 9.8 points per mu with beta 12.5
    exact = model.chance_ahead([(model.MU + mu_gap, 0.0001)], [(model.MU, 0.0001)])
    assert math.isclose(exact, 10 / 11, abs_tol=1e-6)
    settled = model.chance_ahead([(model.MU + mu_gap, model.SETTLED_SIGMA)], [(model.MU, model.SETTLED_SIGMA)])
    assert 0.88 < settled < 10 / 11
    assert model.display_rating(model.MU + mu_gap, 5.0) - model.display_rating(model.MU, 5.0) == 400


def test_issue19_provisional_by_uncertainty_alone_not_a_count_of_games():
    assert model.is_provisional(model.SIGMA)  # a newcomer
    assert model.is_provisional(7.21)
    assert not model.is_provisional(7.2)
    assert model.PROVISIONAL_SIGMA == 7.2
    assert not hasattr(model, "PROVISIONAL_GAMES")  # no second rule beside the sigma one


def _games_until_established(players: int) -> int:
    """Equal newcomers at one table, taking every place in turn, until the first one shows a number."""
    table = [(model.MU, model.SIGMA)] * players
    games = 0
    while model.is_provisional(table[0][1]):
        games += 1
        ranks = [(seat + games) % players + 1 for seat in range(players)]
        table = [team[0] for team in model.rate([[r] for r in table], ranks)]
    return games


def test_issue19_the_provisional_rule_needs_more_games_where_a_game_says_less():
    """A 2-player game compares one pair, a 6-player game fifteen: the sigma rule asks for
    23 two-player games, 12 three-player, 8 four-player and 5 six-player ones (as the
    "what is this number" page says)."""
    assert _games_until_established(2) == 23
    assert _games_until_established(3) == 12
    assert _games_until_established(4) == 8
    assert _games_until_established(6) == 5


def test_issue19_chances_of_being_the_durak():
    new = (model.MU, model.SIGMA)
    assert model.chances_durak([[new], [new]]) == [0.5, 0.5]
    strong, weak = (75.0, 5.0), (15.0, 5.0)
    two = model.chances_durak([[strong], [weak]])
    assert two[0] < 0.3 < 0.7 < two[1]  # the weaker is likelier the durak
    assert math.isclose(sum(two), 1.0)
    three = model.chances_durak([[strong], [new], [weak]])
    assert three[0] < three[1] < three[2]
    assert math.isclose(sum(three), 1.0)
    equal_six = model.chances_durak([[new]] * 6)
    assert all(math.isclose(c, 1 / 6) for c in equal_six)
    partners = model.chances_durak([[strong, new], [weak, new]])
    assert partners[0] < partners[1] and math.isclose(sum(partners), 1.0)


def test_issue19_uncertainty_makes_a_chance_less_sure():
    """Two sides with the same mu: the uncertain one's performance is wider, so against a
    clearly weaker third player it is likelier last than the settled one; and a provisional
    side's range (one sigma either way) holds its chance."""
    settled, unsure, weak = (40.0, 1.0), (40.0, 8.3), (0.0, 1.0)
    chances = model.chances_durak([[settled], [unsure], [weak]])
    assert chances[0] < chances[1]
    low, high = model.chance_range([[settled], [unsure], [weak]], 1)
    assert low < chances[1] < high


def test_issue19_whole_percents_add_up_to_100():
    assert model.whole_percents([1 / 3] * 3) == [34, 33, 33]
    assert sum(model.whole_percents([1 / 6] * 6)) == 100
    assert model.whole_percents([0.5, 0.5]) == [50, 50]


@given(teams=st.lists(st.tuples(ratings), min_size=2, max_size=6))
@settings(max_examples=100, deadline=None)
def test_issue19_chances_of_being_the_durak_sum_to_one_and_follow_mu(teams):
    chances = model.chances_durak([list(t) for t in teams])
    assert all(0 < c < 1 for c in chances)
    assert math.isclose(sum(chances), 1.0)
    assert sum(model.whole_percents(chances)) == 100
    for i in range(len(teams)):
        for j in range(len(teams)):
            (mu_i, sigma_i), (mu_j, sigma_j) = teams[i][0], teams[j][0]
            if mu_i > mu_j and sigma_i == sigma_j:
                assert chances[i] <= chances[j]


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


@given(
    teams=st.lists(st.lists(ratings, min_size=1, max_size=3), min_size=2, max_size=6),
    data=st.data(),
)
@settings(max_examples=300, deadline=None)
def test_the_sites_bradley_terry_is_the_librarys_to_the_last_bit(teams, data):
    """`model.bradley_terry_full` repeats openskill's arithmetic without its copies: same numbers, exactly."""
    ranks = data.draw(st.permutations(range(1, len(teams) + 1)))
    library = model.get_model()
    expected = library.rate([[library.rating(mu=m, sigma=s) for m, s in t] for t in teams], ranks=list(ranks))
    assert model.bradley_terry_full(teams, list(ranks)) == [[(r.mu, r.sigma) for r in t] for t in expected]
