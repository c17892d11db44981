"""Points by place (issue #9, scoring): the durak scores nothing, shared places share the points."""

import pytest

from tournaments.formats import default_points, points_for_places


def test_default_points_count_down_to_nothing_for_the_durak():
    assert default_points(2) == [1.0, 0.0]
    assert default_points(4) == [3.0, 2.0, 1.0, 0.0]
    assert default_points(6) == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]


def test_points_follow_the_places():
    assert points_for_places({7: 2, 8: 1, 9: 4, 10: 3}, 4) == {7: 2.0, 8: 3.0, 9: 0.0, 10: 1.0}


def test_a_draw_shares_the_last_places():
    # Nobody was left holding cards: the last two share places 3 and 4, (1 + 0) / 2 each.
    assert points_for_places({1: 1, 2: 2, 3: 3, 4: 3}, 4) == {1: 3.0, 2: 2.0, 3: 0.5, 4: 0.5}


def test_shared_first_places_at_six():
    points = points_for_places({1: 1, 2: 1, 3: 1, 4: 4, 5: 5, 6: 6}, 6)
    assert points == {1: 4.0, 2: 4.0, 3: 4.0, 4: 2.0, 5: 1.0, 6: 0.0}


def test_an_event_points_table_is_used_as_given():
    assert points_for_places({1: 1, 2: 2, 3: 3}, 3, points=[6, 4, 0]) == {1: 6.0, 2: 4.0, 3: 0.0}


def test_bad_places_are_refused():
    with pytest.raises(ValueError):
        points_for_places({1: 1, 2: 5}, 4)
    with pytest.raises(ValueError):
        points_for_places({1: 1, 2: 2, 3: 2}, 2)
    with pytest.raises(ValueError):
        points_for_places({1: 1, 2: 2}, 2, points=[1, 0, 0])
    with pytest.raises(ValueError):
        points_for_places({1: 1, 2: 4, 3: 4}, 4)
