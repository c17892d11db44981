"""The progressive (cumulative) score tie-break: the sum of an entrant's running totals after each
round, so that of two entrants equal on points the one who scored earlier ranks higher."""

from django.utils import translation

from tournaments import standings


def row(entrant, round_, table, points):
    return {"entrant": entrant, "round": round_, "table": table, "points": points, "durak": False, "game": 1}


# Three rounds at tables of two. 1 scores 1, 0, 1 (running totals 1, 1, 2: sum 4); 2 scores 0, 1,
# 1 (0, 1, 2: sum 3); both end on 2 points. 3 sits out round 1 (a bye of 0.5) and scores 1, 0
# (0.5, 1.5, 1.5: sum 3.5). 4 loses all three (0).
ROWS = [
    row(1, 1, "a", 1),
    row(2, 1, "a", 0),
    row(4, 1, "b", 0),
    row(3, 1, None, 0.5),
    row(2, 2, "a", 1),
    row(1, 2, "a", 0),
    row(3, 2, "b", 1),
    row(4, 2, "b", 0),
    row(1, 3, "a", 1),
    row(3, 3, "a", 0),
    row(2, 3, "b", 1),
    row(4, 3, "b", 0),
]


def test_progressive_score_sums_the_running_totals_after_each_round():
    lines = {line.entrant: line for line in standings.compute([1, 2, 3, 4], ROWS, tiebreaks=["progressive"])}
    assert {e: lines[e].points for e in (1, 2, 3, 4)} == {1: 2, 2: 2, 3: 1.5, 4: 0}
    assert {e: lines[e].progressive for e in (1, 2, 3, 4)} == {1: 4, 2: 3, 3: 3.5, 4: 0}


def test_progressive_score_ranks_the_earlier_scorer_first_whatever_the_lot():
    for event_key in range(6):
        lines = standings.compute([2, 1, 3, 4], ROWS, tiebreaks=["progressive"], event_key=event_key)
        assert [line.entrant for line in lines] == [1, 2, 3, 4]


def test_progressive_score_is_a_registered_metric_named_in_both_languages():
    metric = standings.METRICS["progressive"]
    assert "running totals" in metric.description
    with translation.override("ru"):
        assert str(metric.header) == "Прогресс"
        assert str(metric.label).startswith("прогрессивный коэффициент")
        assert metric.text(3.5) == "3,5"
