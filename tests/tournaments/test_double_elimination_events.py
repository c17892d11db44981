"""Double elimination run through the services: each round of the event seats the matches the
bracket has ready, a side is out after its second lost match, the grand final's bracket reset,
byes, the standings by the stage reached, the page and the bracket in Russian, exports and print.
The bracket's own rules: test_formats_double_elimination.py."""

from __future__ import annotations

import csv
import io
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments import selectors, services, tasks
from tournaments.event_formats_double_elimination import DOUBLE_ELIMINATION
from tournaments.models import Entrant, Result, Round, Tournament

from .helpers import latest_game, make_event, make_users, play_game_lost_by, play_round

pytestmark = pytest.mark.django_db


def start(event):
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    tasks.sweep_events()
    event.refresh_from_db()


def double_elimination(count: int, **kw):
    users = make_users(count)
    event = make_event(
        name="Кубок с утешением", table_size=2, format=Tournament.Format.DOUBLE_ELIMINATION, turn_seconds=None, **kw
    )
    entrants = [services.do_register(tournament_id=event.pk, user=u) for u in users]
    return event, dict(enumerate(entrants, start=1))  # no ratings: seeds by registration


def matches_now(event) -> dict[frozenset, str]:
    """The round being played: each table's two sides -> its match's code in the bracket."""
    return {frozenset(m.table): str(m.id) for m in DOUBLE_ELIMINATION.played(event).state.ready}


def play_through(event, seed_of, loser) -> list[list[tuple[str, list[int]]]]:
    """Play every round to the end, `loser(code, seeds)` naming the seed who loses each match;
    returns each round's matches as (code, seeds at the table)."""
    rounds = []
    for number in range(1, 20):
        round_ = Round.objects.get(tournament=event, number=number)
        assert round_.status == Round.Status.PLAYING
        codes = matches_now(event)
        played = []
        for rt in round_.tables.order_by("number"):
            code = codes[frozenset(rt.entrants)]
            seeds = [seed_of[pk] for pk in rt.entrants]
            played.append((code, seeds))
            losing = Entrant.objects.get(pk=next(pk for pk in rt.entrants if seed_of[pk] == loser(code, seeds)))
            tasks.record_game(play_game_lost_by(latest_game(rt.table_id), losing.user).pk)
        rounds.append(played)
        tasks.sweep_events()
        event.refresh_from_db()
        if event.status == Tournament.Status.FINISHED:
            return rounds
    raise AssertionError("the event did not finish")


def better_seed_wins_but_the_losers_side_takes_the_grand_final(code, seeds):
    """The worse seed loses, except in the grand final, won by the losers' bracket's winner (the
    worse seed there): the bracket is reset, and the second final goes to the better seed."""
    return seeds[0] if code == "GF" else seeds[1]


def places_of(event, seed_of) -> dict[int, int]:
    return {seed_of[line["entrant"]]: line["rank"] for line in selectors.standings_table(event)}


def test_five_entrants_byes_a_bracket_reset_and_the_standings_by_stage():
    event, entrant = double_elimination(5)
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    start(event)
    first = Round.objects.get(tournament=event, number=1)
    assert set(first.byes) == {entrant[1].pk}, "seeds 2 and 3 had byes too, and meet at once: both are known"
    rounds = play_through(event, seed_of, better_seed_wins_but_the_losers_side_takes_the_grand_final)
    assert rounds == [
        [("W1.2", [4, 5]), ("W2.2", [2, 3])],
        [("W2.1", [1, 4]), ("L2.1", [3, 5])],
        [("L3.1", [3, 4]), ("W3.1", [1, 2])],
        [("L4.1", [2, 3])],
        [("GF", [1, 2])],
        [("GF2", [1, 2])],
    ]
    assert sum(len(r) for r in rounds) == 9, "2n - 1 matches with a reset"
    lost = Counter(r.entrant_id for r in Result.objects.filter(round__tournament=event, is_bye=False) if r.points == 0)
    assert {seed_of[pk]: n for pk, n in lost.items()} == {1: 1, 2: 2, 3: 2, 4: 2, 5: 2}
    assert Entrant.objects.get(pk=entrant[1].pk).eliminated_in_round is None
    assert Entrant.objects.get(pk=entrant[2].pk).eliminated_in_round == 6, "out in the second final"
    assert places_of(event, seed_of) == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5}
    winner = selectors.standings_table(event)[0]
    assert winner["state"] == "победа в турнире"


def test_eight_entrants_the_losers_bracket_crosses_and_places_are_shared_by_losers_round():
    event, entrant = double_elimination(8)
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    start(event)
    rounds = play_through(event, seed_of, better_seed_wins_but_the_losers_side_takes_the_grand_final)
    assert rounds == [
        [("W1.1", [1, 8]), ("W1.2", [4, 5]), ("W1.3", [2, 7]), ("W1.4", [3, 6])],
        [("W2.1", [1, 4]), ("W2.2", [2, 3]), ("L1.1", [5, 8]), ("L1.2", [6, 7])],
        [("L2.1", [3, 5]), ("L2.2", [4, 6]), ("W3.1", [1, 2])],
        [("L3.1", [3, 4])],
        [("L4.1", [2, 3])],
        [("GF", [1, 2])],
        [("GF2", [1, 2])],
    ]
    rank = places_of(event, seed_of)
    assert [rank[seed] for seed in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert {rank[5], rank[6]} == {5, 6} and {rank[7], rank[8]} == {7, 8}, "out in losers' round 2, then in round 1"
    reached = DOUBLE_ELIMINATION.rounds_reached(event, Entrant.objects.filter(tournament=event))
    assert {seed_of[pk]: stage for pk, stage in reached.items()} == {
        1: None,
        2: 5,  # either final: 2k - 1
        3: 4,
        4: 3,
        5: 2,
        6: 2,
        7: 1,
        8: 1,
    }, "the sides out in the same losers' round are level, whichever round of the event"


def test_without_a_reset_the_winners_side_takes_the_grand_final_and_the_event_ends():
    event, entrant = double_elimination(4)
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    start(event)
    rounds = play_through(event, seed_of, lambda code, seeds: seeds[1])
    assert [code for r in rounds for code, _seeds in r] == ["W1.1", "W1.2", "W2.1", "L1.1", "L2.1", "GF"]
    assert not Round.objects.filter(tournament=event, number=len(rounds) + 1).exists()
    assert places_of(event, seed_of)[1] == 1 and places_of(event, seed_of)[2] == 2


def test_a_withdrawn_side_loses_his_matches_without_playing(director):
    """Four entrants; 3 and 4 lose round one, then 4 withdraws: his losers' match against 3 is his
    second loss without a table, and round two seats the winners' final alone."""
    event, entrant = double_elimination(4)
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    start(event)
    for rt in Round.objects.get(tournament=event, number=1).tables.order_by("number"):
        worse = Entrant.objects.get(pk=rt.entrants[1])
        tasks.record_game(play_game_lost_by(latest_game(rt.table_id), worse.user).pk)
    services.do_withdraw(tournament_id=event.pk, entrant_id=entrant[4].pk, by=director)
    tasks.sweep_events()
    second = Round.objects.get(tournament=event, number=2)
    assert [[seed_of[pk] for pk in rt.entrants] for rt in second.tables.order_by("number")] == [[1, 2]]
    state = DOUBLE_ELIMINATION.played(event).state
    assert state.losses[entrant[4].pk] == 2 and state.losses[entrant[3].pk] == 1
    assert [m.table for m in state.ready] == [(entrant[1].pk, entrant[2].pk)]


def test_a_pairs_double_elimination_plays_to_its_champion():
    users = make_users(10)
    event = make_event(
        name="Парный кубок", kind=Tournament.Kind.PAIRS, format=Tournament.Format.DOUBLE_ELIMINATION, turn_seconds=None
    )
    for a, b in zip(users[::2], users[1::2], strict=True):
        pair = services.do_invite_partner(user=a, partner=b)
        services.do_answer_invitation(pair_id=pair.pk, user=b, accept=True)
        services.do_register(tournament_id=event.pk, user=a, pair_id=pair.pk)
    start(event)
    for number in range(1, 20):
        play_round(event, number)
        tasks.sweep_events()
        event.refresh_from_db()
        if event.status == Tournament.Status.FINISHED:
            break
    state = DOUBLE_ELIMINATION.played(event).state
    assert state.finished
    played = len(state.played())
    assert played in (2 * 5 - 2, 2 * 5 - 1)
    assert sorted(state.losses.values()) in ([0, 2, 2, 2, 2], [1, 2, 2, 2, 2])
    assert Entrant.objects.filter(tournament=event, eliminated_in_round=None).count() == 1
    tables = [rt for r in Round.objects.filter(tournament=event) for rt in r.tables.all()]
    assert len(tables) == played and all(len(rt.entrants) == 2 for rt in tables), "two pairs at each table"


def test_the_event_page_and_the_bracket_in_russian(client):
    event, entrant = double_elimination(5)
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    start(event)
    play_through(event, seed_of, better_seed_wins_but_the_losers_side_takes_the_grand_final)
    page = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "двойное выбывание" in page
    assert "Сетка победителей" in page and "Сетка проигравших" in page
    assert "Гранд-финал" in page and "Перезапуск сетки: второй финал" in page
    assert "Победитель: p01" in page
    assert "выбывает после второго проигранного матча" in page
    assert 'data-match="L4.1"' in page and 'data-match="GF2"' in page


def test_exports_and_print_of_a_double_elimination(client):
    event, entrant = double_elimination(5)
    seed_of = {e.pk: seed for seed, e in entrant.items()}
    start(event)
    play_through(event, seed_of, better_seed_wins_but_the_losers_side_takes_the_grand_final)
    standings_csv = client.get(f"/tournaments/{event.pk}/standings.csv")
    rows = list(csv.reader(io.StringIO(standings_csv.content.decode("utf-8-sig"))))
    assert [row[2] for row in rows[1:]] == ["p01", "p02", "p03", "p04", "p05"]
    trf = client.get(f"/tournaments/{event.pk}/standings.trf").content.decode("utf-8").splitlines()
    assert sum(line.startswith("001") for line in trf) == 5
    assert client.get(f"/tournaments/{event.pk}/games.csv").status_code == 200
    sheet = client.get(f"/tournaments/{event.pk}/print/standings/").content.decode()
    assert sheet.index("p01") < sheet.index("p02") < sheet.index("p03") < sheet.index("p05")
    assert client.get(f"/tournaments/{event.pk}/print/standings.pdf").status_code == 200
