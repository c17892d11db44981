"""Scoring and standings (pure): checked by hand on small cases."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import standings


def test_places_give_the_points_of_the_table_and_the_durak_nothing():
    points = standings.game_points({1: 1, 2: 2, 3: 3, 4: 4}, 4, [3, 2, 1, 0], durak=4)
    assert points == {1: 3, 2: 2, 3: 1, 4: 0}


def test_shared_places_share_the_points_they_span():
    # R19-R21: two players out on the same move share 1st and 2nd: (3 + 2) / 2 each.
    points = standings.game_points({1: 1, 2: 1, 3: 3, 4: 4}, 4, [3, 2, 1, 0], durak=4)
    assert points == {1: 2.5, 2: 2.5, 3: 1, 4: 0}


def test_the_durak_scores_nothing_even_where_the_table_gives_last_place_points():
    points = standings.game_points({1: 1, 2: 2, 3: 3}, 3, [5, 3, 1], durak=3)
    assert points == {1: 5, 2: 3, 3: 0}


def test_a_bye_is_worth_the_average_of_the_points_table_to_half_a_point():
    assert standings.bye_points([3, 2, 1, 0]) == 1.5
    assert standings.bye_points([1, 0]) == 0.5
    assert standings.bye_points([6, 4, 2, 0]) == 3


def test_pair_places_the_durak_team_is_second_and_a_draw_shares_first():
    seats = [
        {"team": 0, "is_loser": False, "abandoned": False},
        {"team": 1, "is_loser": True, "abandoned": False},
        {"team": 0, "is_loser": False, "abandoned": False},
        {"team": 1, "is_loser": False, "abandoned": False},
    ]
    assert standings.pair_places(seats) == {0: 1, 1: 2}
    draw = [dict(s, is_loser=False) for s in seats]
    assert standings.pair_places(draw) == {0: 1, 1: 1}
    abandoned = [dict(s, is_loser=False, abandoned=s["team"] == 0) for s in seats]
    assert standings.pair_places(abandoned) == {0: 2, 1: 1}


def test_standings_by_points_then_buchholz_then_fewer_duraks_then_rating():
    # Two rounds of six entrants at tables of three, worked out by hand.
    # Round 1: table A = 1, 2, 3 (3, 1, 0 points), table B = 4, 5, 6 (3, 1, 0).
    # Round 2: table C = 1, 4, 5 (0, 3, 1),       table D = 2, 3, 6 (1, 3, 0).
    rows = [
        {"entrant": 1, "round": 1, "table": "A", "points": 3, "durak": False},
        {"entrant": 2, "round": 1, "table": "A", "points": 1, "durak": False},
        {"entrant": 3, "round": 1, "table": "A", "points": 0, "durak": True},
        {"entrant": 4, "round": 1, "table": "B", "points": 3, "durak": False},
        {"entrant": 5, "round": 1, "table": "B", "points": 1, "durak": False},
        {"entrant": 6, "round": 1, "table": "B", "points": 0, "durak": True},
        {"entrant": 1, "round": 2, "table": "C", "points": 0, "durak": True},
        {"entrant": 4, "round": 2, "table": "C", "points": 3, "durak": False},
        {"entrant": 5, "round": 2, "table": "C", "points": 1, "durak": False},
        {"entrant": 2, "round": 2, "table": "D", "points": 1, "durak": False},
        {"entrant": 3, "round": 2, "table": "D", "points": 3, "durak": False},
        {"entrant": 6, "round": 2, "table": "D", "points": 0, "durak": True},
    ]
    lines = {line.entrant: line for line in standings.compute([1, 2, 3, 4, 5, 6], rows, ratings={2: 1600, 5: 1500})}
    # Totals: 1 -> 3, 2 -> 2, 3 -> 3, 4 -> 6, 5 -> 2, 6 -> 0.
    assert {e: line.points for e, line in lines.items()} == {1: 3, 2: 2, 3: 3, 4: 6, 5: 2, 6: 0}
    # Buchholz, averaged per opponent met (issue #15, point 8): 1 met 2, 3, 4, 5 -> (2 + 3 + 6 + 2) / 4;
    # 3 met 1, 2, 6 (2 twice) -> (3 + 2 + 2 + 0) / 4.
    assert lines[1].buchholz == 13 / 4
    assert lines[3].buchholz == 7 / 4
    # 2 and 5 have 2 points; Buchholz 2: 1, 3, 3, 6 -> (3+3+3+0) / 4; 5: 4, 6, 1, 4 -> (6+0+3+6) / 4.
    assert lines[2].buchholz == 9 / 4
    assert lines[5].buchholz == 15 / 4
    order = [line.entrant for line in sorted(lines.values(), key=lambda x: x.rank)]
    assert order == [4, 1, 3, 5, 2, 6]


def test_equal_points_and_buchholz_fewer_duraks_first_then_the_seed_fixed_at_the_start():
    rows = [
        {"entrant": 1, "round": 1, "table": "A", "points": 1, "durak": False},
        {"entrant": 2, "round": 1, "table": "A", "points": 1, "durak": False},
        {"entrant": 3, "round": 1, "table": "B", "points": 1, "durak": True},
        {"entrant": 4, "round": 1, "table": "B", "points": 1, "durak": False},
    ]
    order = [line.entrant for line in standings.compute([3, 4, 1, 2], rows, seeds={2: 1, 1: 2})]
    # Equal points, Buchholz, median Buchholz and Sonneborn-Berger (each met one 1-point opponent
    # and scored the same: 1/2 of 1). 3 was durak once: last of the four; seed 1 (2) before seed 2 (1);
    # 4 has no seed (a late entrant) and comes after both.
    assert order == [2, 1, 4, 3]


def test_a_bye_counts_points_but_no_opponents_and_late_entrants_start_at_zero():
    rows = [
        {"entrant": 1, "round": 1, "table": None, "points": 1.5, "durak": False},
        {"entrant": 2, "round": 1, "table": "A", "points": 3, "durak": False},
    ]
    lines = {line.entrant: line for line in standings.compute([1, 2, 9], rows)}
    assert lines[1].points == 1.5 and lines[1].byes == 1 and lines[1].buchholz == 0
    assert lines[9].points == 0 and lines[9].games == 0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 8), st.integers(1, 4), st.sampled_from("ABCD"), st.sampled_from([0, 1, 1.5, 2, 3])),
        max_size=40,
    )
)
def test_standings_add_up_and_are_in_order(raw):
    rows = [{"entrant": e, "round": r, "table": t, "points": p, "durak": p == 0} for e, r, t, p in raw]
    lines = standings.compute(list(range(1, 9)), rows)
    assert [line.rank for line in lines] == list(range(1, 9))
    for line in lines:
        assert line.points == sum(row["points"] for row in rows if row["entrant"] == line.entrant)
    keys = [
        (-line.points, -line.buchholz, -line.median_buchholz, -line.sonneborn_berger, line.duraks) for line in lines
    ]
    assert keys == sorted(keys)
