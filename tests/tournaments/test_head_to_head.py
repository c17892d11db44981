"""The head-to-head tie-break (issue 15, "Formats and tie-breaks behind registries": each tie-break a
named metric the director orders per event, head-to-head among them). A tie built by hand is
decided by who finished above whom where the tied entrants met, both ways round; a rival who
is not tied counts for nothing."""

import pytest

from tournaments import selectors, standings
from tournaments.forms import TournamentForm

from .helpers import make_event


def row(entrant, round_, table, points, game=1):
    return {"entrant": entrant, "round": round_, "table": table, "points": points, "durak": False, "game": game}


def tie_won_by(winner: int, loser: int) -> list[dict]:
    """`winner` and `loser` end on 1 point each; they met once, at table A, where `winner`
    finished above. `loser` finished above 4, who is not tied: that counts for nothing."""
    return [
        row(winner, 1, "A", 1),
        row(loser, 1, "A", 0),
        row(3, 1, "B", 1),
        row(4, 1, "B", 0),
        row(loser, 2, "C", 1),
        row(4, 2, "C", 0),
        row(3, 2, "D", 1),
        row(winner, 2, "D", 0),
    ]


def order(rows, tiebreaks, event_key=7):
    return [line.entrant for line in standings.compute([1, 2, 3, 4], rows, tiebreaks=tiebreaks, event_key=event_key)]


@pytest.mark.parametrize("event_key", [7, 8, 9])
def test_issue15_head_to_head_decides_a_tie_both_ways(event_key):
    assert order(tie_won_by(1, 2), ["head_to_head"], event_key) == [3, 1, 2, 4]
    assert order(tie_won_by(2, 1), ["head_to_head"], event_key) == [3, 2, 1, 4]
    lines = {x.entrant: x for x in standings.compute([1, 2, 3, 4], tie_won_by(1, 2), tiebreaks=["head_to_head"])}
    assert (lines[1].head_to_head, lines[2].head_to_head) == (1, 0)
    # Without it the tie falls to the lot, the same whichever of the two won their game.
    by_lot = order(tie_won_by(1, 2), ["games"], event_key)
    assert order(tie_won_by(2, 1), ["games"], event_key) == by_lot


def test_issue15_head_to_head_at_a_table_of_four_counts_each_tied_rival_finished_above():
    # 1, 2 and 3 end on 3 points. Round 1, one table of four: 1 above 2 and 3, 2 above 3.
    # Round 2: 3 above 2 at one table; 1 below 8 (4 points, not tied) at another.
    rows = [
        row(1, 1, "A", 3),
        row(2, 1, "A", 2),
        row(3, 1, "A", 1),
        row(5, 1, "A", 0),
        row(3, 2, "B", 2),
        row(2, 2, "B", 1),
        row(6, 2, "B", 0),
        row(7, 2, "B", 0),
        row(8, 2, "C", 4),
        row(1, 2, "C", 0),
    ]
    entrants = [1, 2, 3, 5, 6, 7, 8]
    lines = standings.compute(entrants, rows, tiebreaks=["head_to_head"])
    by_entrant = {x.entrant: x for x in lines}
    assert {e: by_entrant[e].points for e in (1, 2, 3)} == {1: 3, 2: 3, 3: 3}
    # 1: above 2 and 3 in round 1 = 2; 2: above 3 in round 1 = 1; 3: above 2 in round 2 = 1.
    assert {e: by_entrant[e].head_to_head for e in (1, 2, 3)} == {1: 2, 2: 1, 3: 1}
    assert by_entrant[8].head_to_head == 0  # alone on 4 points: no tie
    assert [x.entrant for x in lines][:2] == [8, 1]


def test_issue15_head_to_head_counts_only_a_tie_left_by_the_tie_breaks_before_it():
    # 1 and 2 tie on points and 1 finished above 2; a Buchholz ordered first splits them already,
    # so head-to-head after it sees no tie between them (and leaves 0 to both).
    rows = tie_won_by(1, 2)
    lines = {x.entrant: x for x in standings.compute([1, 2, 3, 4], rows, tiebreaks=["buchholz", "head_to_head"])}
    assert (lines[1].buchholz, lines[2].buchholz) == (1.5, 0.5)
    assert lines[1].head_to_head == lines[2].head_to_head == 0
    lines = {x.entrant: x for x in standings.compute([1, 2, 3, 4], rows, tiebreaks=["games", "head_to_head"])}
    assert lines[1].head_to_head == 1


@pytest.mark.django_db
def test_issue15_the_director_can_order_head_to_head():
    assert "head_to_head" in standings.METRICS
    form = TournamentForm()
    form.cleaned_data = {"tiebreaks": "head_to_head, buchholz"}
    assert form.clean_tiebreaks() == ["head_to_head", "buchholz"]
    assert "head_to_head" in form.fields["tiebreaks"].help_text
    event = make_event(tiebreaks=["head_to_head", "seed"])
    assert selectors.tiebreak_texts(event) == [
        "личные встречи (скольких равных по очкам соперников удалось опередить за одним столом)",
        "лучший номер посева (по рейтингу на момент старта события)",
    ]
