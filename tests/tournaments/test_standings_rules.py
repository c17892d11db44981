"""Standings defects of issue #15 (points 7 and 8), each recounted by hand: the tie-break registry,
Buchholz per opponent, unequal games under a time limit, ties without registration order, the seed
frozen at the start, withdrawn and disqualified at the bottom; and (with the database) entrants who
never checked in, the state after the finish, knockout standings by round reached, the bracket and
the rules text about byes."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from tournaments import selectors, standings
from tournaments.models import Entrant, Result, Round, RoundTable, Tournament

from .helpers import make_event, make_users


def row(entrant, round_, table, points, durak=False, game=1):
    return {"entrant": entrant, "round": round_, "table": table, "points": points, "durak": durak, "game": game}


def order_of(lines):
    return [line.entrant for line in lines]


# ----------------------------------------------------------------- pure


def test_buchholz_is_averaged_per_opponent_so_a_fuller_table_gives_no_more():
    # What was seen: Buchholz summed every table-mate, so 1 (a table of four) got 2 + 1 + 0 = 3
    # and 5 (a table of three) 2 + 0 = 2 for the same kind of win. Per opponent: 3 / 3 = 1 and 2 / 2 = 1.
    rows = [
        row(1, 1, "A", 3),
        row(2, 1, "A", 2),
        row(3, 1, "A", 1),
        row(4, 1, "A", 0, durak=True),
        row(5, 1, "B", 3),
        row(6, 1, "B", 2),
        row(7, 1, "B", 0, durak=True),
    ]
    lines = {x.entrant: x for x in standings.compute([1, 2, 3, 4, 5, 6, 7], rows, seeds={5: 1, 1: 2})}
    assert lines[1].buchholz == lines[5].buchholz == 1
    # Median Buchholz drops the best and the worst of 1's three opponents (2 and 0): 1; 5 met two: 1.
    assert lines[1].median_buchholz == lines[5].median_buchholz == 1
    # Sonneborn-Berger: each beat every table-mate: (2 + 1 + 0) / 3 = 1 and (2 + 0) / 2 = 1.
    assert lines[1].sonneborn_berger == lines[5].sonneborn_berger == 1
    # Everything equal, so the seed fixed at the start decides: 5 (seed 1) before 1 (seed 2).
    assert order_of(standings.compute([1, 2, 3, 4, 5, 6, 7], rows, seeds={5: 1, 1: 2}))[:2] == [5, 1]


def test_unequal_games_in_a_round_are_averaged_per_game():
    # Round 1 under a time limit: table A played 3 games (1 won two, 2 one), table B only 1 (3 won it).
    # Summed, 1 had 2 and 3 had 1. The rule: points per game at the table times the fullest table's
    # 3 games: 1 -> 2 / 3 * 3 = 2, 2 -> 1, 3 -> 1 / 1 * 3 = 3, 4 -> 0.
    rows = [
        row(1, 1, "A", 1, game=1),
        row(2, 1, "A", 0, durak=True, game=1),
        row(1, 1, "A", 1, game=2),
        row(2, 1, "A", 0, durak=True, game=2),
        row(1, 1, "A", 0, durak=True, game=3),
        row(2, 1, "A", 1, game=3),
        row(3, 1, "B", 1, game=1),
        row(4, 1, "B", 0, durak=True, game=1),
    ]
    lines = standings.compute([1, 2, 3, 4], rows)
    assert [(x.entrant, x.points) for x in lines] == [(3, 3), (1, 2), (2, 1), (4, 0)]
    by = {x.entrant: x for x in lines}
    assert by[3].averaged_rounds == [1] and by[1].averaged_rounds == [1]
    # Equal numbers of games: plain sums, nothing averaged.
    equal = standings.compute([1, 2, 3, 4], [r for r in rows if r["game"] == 1])
    assert {x.entrant: (x.points, x.averaged_rounds) for x in equal} == {1: (1, []), 2: (0, []), 3: (1, []), 4: (0, [])}


def _round_robin_of_four() -> list[dict]:
    # A round robin of four at two-player tables (points 1/0), registered 2, 1, 3, 4:
    # round 1: 1 beat 2, 3 beat 4; round 2: 1 beat 3, 2 beat 4; round 3: 4 beat 1, 2 beat 3.
    # Points: 1 -> 2, 2 -> 2, 3 -> 1, 4 -> 1 (registration order put 2 before 1 and 3 before 4).
    rows = [
        row(1, 1, "a", 1),
        row(2, 1, "a", 0, True),
        row(3, 1, "b", 1),
        row(4, 1, "b", 0, True),
        row(1, 2, "a", 1),
        row(3, 2, "a", 0, True),
        row(2, 2, "b", 1),
        row(4, 2, "b", 0, True),
        row(4, 3, "a", 1),
        row(1, 3, "a", 0, True),
        row(2, 3, "b", 1),
        row(3, 3, "b", 0, True),
    ]
    return rows


def test_round_robin_ties_go_to_the_tie_breaks_not_to_registration_order():
    rows = _round_robin_of_four()
    chain = ["sonneborn_berger", "duraks", "games", "seed"]  # Sonneborn-Berger alone, without head-to-head
    lines = {x.entrant: x for x in standings.compute([2, 1, 3, 4], rows, tiebreaks=chain)}
    # Sonneborn-Berger per opponent met: 1 beat 2 (2 points) and 3 (1): 3 / 3 = 1; 2 beat 3 and 4: 2 / 3;
    # 4 beat 1 (2): 2 / 3; 3 beat 4 (1): 1 / 3.
    assert lines[1].sonneborn_berger == 1 and lines[2].sonneborn_berger == 2 / 3
    assert lines[4].sonneborn_berger == 2 / 3 and lines[3].sonneborn_berger == 1 / 3
    assert order_of(sorted(lines.values(), key=lambda x: x.rank)) == [1, 2, 4, 3]


def test_a_round_robin_breaks_ties_by_head_to_head_then_sonneborn_berger():
    # What directors use in a round robin: points, then who beat whom among the tied, then
    # Sonneborn-Berger. In the round robin above 3 beat 4 where they met (round 1), though 4's
    # win was over the stronger 1: head-to-head puts 3 first, Sonneborn-Berger would put 4.
    assert standings.tiebreaks_for("round_robin") == ["head_to_head", "sonneborn_berger", "duraks", "games", "seed"]
    lines = standings.compute([2, 1, 3, 4], _round_robin_of_four(), tiebreaks=standings.tiebreaks_for("round_robin"))
    assert order_of(lines) == [1, 2, 3, 4]
    by = {x.entrant: x for x in lines}
    assert (by[1].head_to_head, by[2].head_to_head, by[3].head_to_head, by[4].head_to_head) == (1, 0, 1, 0)


def test_the_final_tie_break_is_a_lot_fixed_for_the_event():
    # Two entrants equal in everything, no seeds: the lot decides, the same every time for the
    # event and whatever order they registered in.
    rows = [row(10, 1, "a", 1), row(20, 1, "b", 1)]
    by_lot = sorted([10, 20], key=lambda e: standings.lot(7, e))
    assert order_of(standings.compute([10, 20], rows, event_key=7)) == by_lot
    assert order_of(standings.compute([20, 10], rows, event_key=7)) == by_lot


def test_the_seed_tie_break_ignores_ratings_of_the_day():
    # Ratings shown in the table are today's; the order reads the seeds fixed when the event started.
    rows = [row(1, 1, "a", 1), row(2, 1, "b", 1)]
    lines = standings.compute([1, 2], rows, ratings={1: 2100, 2: 1200}, seeds={1: 2, 2: 1})
    assert order_of(lines) == [2, 1]


def test_withdrawn_and_disqualified_rank_below_everyone_in_play():
    rows = [row(1, 1, "a", 3), row(2, 1, "a", 2), row(3, 1, "a", 1), row(4, 1, "a", 0, True)]
    groups = {1: "disqualified", 2: "withdrawn"}
    lines = standings.compute([1, 2, 3, 4], rows, groups=groups)
    # 3 and 4 are in play (1 and 0 points), then the withdrawn 2 (2 points), then the disqualified 1 (3).
    assert order_of(lines) == [3, 4, 2, 1]
    assert [x.rank for x in lines] == [1, 2, 3, 4]


def test_knockout_standings_by_round_reached_then_points():
    # Round 1: 1 lost to 2, 3 had a bye (0 points); the final (round 2): 2 beat 3.
    # Points: 2 -> 2, 1 -> 0, 3 -> 0; registered 1, 2, 3. By points and registration order the
    # first-round loser 1 came before the finalist 3.
    rows = [row(2, 1, "a", 1), row(1, 1, "a", 0, True), row(3, 1, None, 0, game=0), row(2, 2, "f", 1)]
    rows.append(row(3, 2, "f", 0, True))
    lines = standings.compute(
        [1, 2, 3], rows, eliminated={1: 1, 3: 2}, knockout=True, tiebreaks=standings.tiebreaks_for("knockout")
    )
    assert order_of(lines) == [2, 3, 1]


def test_the_tie_break_registry_names_each_metric_and_refuses_unknown_names():
    assert {
        "buchholz",
        "median_buchholz",
        "sonneborn_berger",
        "head_to_head",
        "duraks",
        "wins",
        "games",
        "seed",
    } <= set(standings.METRICS)
    assert all(metric.name == name for name, metric in standings.METRICS.items())
    assert standings.tiebreaks_for("swiss") == ["buchholz", "median_buchholz", "sonneborn_berger", "duraks", "seed"]
    assert standings.tiebreaks_for("swiss", ["seed", "games"]) == ["seed", "games"]
    with pytest.raises(ValueError, match="unknown tie-break 'luck'"):
        standings.tiebreaks_for("swiss", ["luck"])
    with pytest.raises(ValueError, match="appears twice"):
        standings.check_tiebreaks(["seed", "seed"])


# ------------------------------------------------------------- database


def _entrants(event, users, **kw):
    return [Entrant.objects.create(tournament=event, user=user, **kw) for user in users]


def _round(event, number, tables, results, byes=(), status=Round.Status.FINISHED):
    """tables: [[entrant, ...]]; results: {entrant: points} (the table's loser is durak at 0)."""
    round_ = Round.objects.create(
        tournament=event, number=number, status=status, starts_at=timezone.now(), byes=[e.pk for e in byes]
    )
    for i, table in enumerate(tables, start=1):
        rt = RoundTable.objects.create(
            round=round_, number=i, entrants=[e.pk for e in table], games_played=1, done=True
        )
        for entrant in table:
            points = results[entrant.pk]
            Result.objects.create(
                round=round_, round_table=rt, entrant=entrant, game_number=1, points=points, is_durak=points == 0
            )
    for entrant in byes:
        Result.objects.create(round=round_, entrant=entrant, game_number=0, points=0, is_bye=True)
    return round_


@pytest.mark.django_db
def test_entrants_who_never_checked_in_read_did_not_check_in_and_rank_below():
    now = timezone.now()
    event = make_event(
        checkin_opens=now - timedelta(minutes=30), status=Tournament.Status.RUNNING, started_at=now, table_size=3
    )
    users = make_users(4)
    playing = _entrants(event, users[:3], checked_in=True)
    (absent,) = _entrants(event, users[3:])
    _round(event, 1, [playing], {playing[0].pk: 3, playing[1].pk: 2, playing[2].pk: 0}, status=Round.Status.PLAYING)
    lines = selectors.standings_table(event)
    assert [line["entrant"] for line in lines] == [playing[0].pk, playing[1].pk, playing[2].pk, absent.pk]
    assert [line["state"] for line in lines] == ["в игре", "в игре", "в игре", "нет отметки"]
    assert lines[-1]["group"] == "absent" and not lines[-1]["active"]


@pytest.mark.django_db
def test_after_the_finish_the_state_reads_finished_and_withdrawn_rank_last(monkeypatch):
    event = make_event(status=Tournament.Status.FINISHED, started_at=timezone.now(), table_size=4, rounds=1)
    users = make_users(4)
    a, b, c, d = _entrants(event, users)
    _round(event, 1, [[a, b, c, d]], {a.pk: 3, b.pk: 2, c.pk: 1, d.pk: 0})
    Entrant.objects.filter(pk=a.pk).update(state=Entrant.State.DISQUALIFIED)
    Entrant.objects.filter(pk=b.pk).update(state=Entrant.State.WITHDRAWN)
    lines = selectors.standings_table(event)
    # c (1 point) and d (0) in play first; then the withdrawn b (2), then the disqualified a (3).
    assert [line["entrant"] for line in lines] == [c.pk, d.pk, b.pk, a.pk]
    assert [line["state"] for line in lines][:2] == ["турнир завершён", "турнир завершён"]
    assert [line["group"] for line in lines][2:] == ["withdrawn", "disqualified"]


@pytest.mark.django_db
def test_the_rating_tie_break_reads_the_seed_frozen_at_the_start(monkeypatch):
    # Two entrants with equal everything; today 2 outrates 1, but 1 was seeded first at the start.
    event = make_event(status=Tournament.Status.FINISHED, started_at=timezone.now(), table_size=2, rounds=1)
    users = make_users(4)
    one, two, three, four = _entrants(event, users)
    for seed, entrant in enumerate([one, two, three, four], start=1):
        Entrant.objects.filter(pk=entrant.pk).update(seed=seed)
    _round(event, 1, [[two, four], [one, three]], {one.pk: 1, two.pk: 1, three.pk: 0, four.pk: 0})
    from tournaments.selectors import seating as seating_reads

    monkeypatch.setattr(seating_reads, "entrant_ratings", lambda event, entrants: {two.pk: 2000.0, one.pk: 1000.0})
    lines = selectors.standings_table(event)
    assert [line["entrant"] for line in lines] == [one.pk, two.pk, three.pk, four.pk]
    assert lines[1]["rating"] == 2000.0, "shown as today's rating, but it orders nothing"


@pytest.mark.django_db
def test_knockout_standings_bracket_and_rules_text(client):
    # What was seen: by points, the first-round loser (registered first) ranked above the finalist
    # who had a bye; the page said a bye scores 0.5 and showed no bracket.
    event = make_event(
        name="Кубок",
        format=Tournament.Format.KNOCKOUT,
        table_size=2,
        rounds=1,
        status=Tournament.Status.FINISHED,
        started_at=timezone.now(),
    )
    users = make_users(3)
    first, second, third = _entrants(event, users)
    _round(event, 1, [[second, first]], {second.pk: 1, first.pk: 0}, byes=[third])
    _round(event, 2, [[third, second]], {second.pk: 1, third.pk: 0})
    Entrant.objects.filter(pk=first.pk).update(eliminated_in_round=1)
    Entrant.objects.filter(pk=third.pk).update(eliminated_in_round=2)
    lines = selectors.standings_table(event)
    # Hand count: second won both (2 points), third reached the final (0), first went out in round 1 (0).
    assert [(line["entrant"], line["points"]) for line in lines] == [(second.pk, 2), (third.pk, 0), (first.pk, 0)]
    assert lines[0]["state"] == "победа в турнире"

    bracket = selectors.bracket(event)
    assert [column["number"] for column in bracket["rounds"]] == [1, 2]
    one, final = bracket["rounds"]
    assert [(s["name"], s["through"]) for s in one["tables"][0]["seats"]] == [("p02", True), ("p01", False)]
    assert one["byes"] == [{"name": "p03", "through": True}]
    assert [(s["name"], s["points"], s["through"]) for s in final["tables"][0]["seats"]] == [
        ("p03", 0.0, False),
        ("p02", 1.0, True),
    ]

    text = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "Сетка" in text and "проход дальше" in text and "пропуск тура: проход дальше" in text
    assert "Пропуск тура (бай) приносит 0 очков и выводит в следующий тур" in text
    assert "приносит 0,5" not in text and "приносит 0.5" not in text
    assert "Кто проходит дальше: победитель каждого матча" in text
    assert "Порядок в таблице: по достигнутому туру" in text
    assert "вылет в туре 1" in text


#: The names a refusal offers: every registered tie-break, in the registry's order.
KNOWN = ", ".join(standings.METRICS)


@pytest.mark.django_db
def test_the_event_orders_its_own_tie_breaks_and_bad_names_are_refused(client):
    event = make_event(status=Tournament.Status.FINISHED, started_at=timezone.now(), table_size=2, rounds=1)
    users = make_users(4)
    one, two, three, four = _entrants(event, users)
    _round(event, 1, [[one, three], [two, four]], {one.pk: 1, two.pk: 1, three.pk: 0, four.pk: 0})
    Entrant.objects.filter(pk=one.pk).update(seed=2)
    Entrant.objects.filter(pk=two.pk).update(seed=1)
    assert [line["entrant"] for line in selectors.standings_table(event)][:2] == [two.pk, one.pk]
    text = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert "При равенстве очков решают: Бухгольц (средние очки встреченных соперников" in text
    assert "затем жребий (один раз определённый для события)." in text
    field = Tournament._meta.get_field("tiebreaks")
    with pytest.raises(ValidationError) as refused:
        field.run_validators(["luck"])
    assert refused.value.messages == [f"Дополнительного показателя «luck» нет. Выберите из списка: {KNOWN}."]
    field.run_validators(["seed", "duraks"])
    Tournament.objects.filter(pk=event.pk).update(tiebreaks=["games"])
    event.refresh_from_db()
    assert selectors.tiebreak_texts(event) == ["больше сыгранных партий"]


@pytest.mark.django_db
def test_the_admin_form_orders_an_events_tie_breaks_by_name(admin_client):
    from .test_admin_forms import ADD, _admin_data, _errors, _with_defaults

    response = admin_client.post(ADD, _with_defaults(admin_client, _admin_data(tiebreaks="sonneborn_berger, seed")))
    assert response.status_code == 302, _errors(response)
    event = Tournament.objects.get(name="Кубок четверга")
    assert event.tiebreaks == ["sonneborn_berger", "seed"]
    page = admin_client.get(f"/admin/tournaments/tournament/{event.pk}/change/").content.decode()
    assert 'value="sonneborn_berger, seed"' in page
    refused = admin_client.post(ADD, _with_defaults(admin_client, _admin_data(name="Другой", tiebreaks="seed, luck")))
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors["tiebreaks"] == [
        f"Дополнительного показателя «luck» нет. Выберите из списка: {KNOWN}."
    ]
    assert not Tournament.objects.filter(name="Другой").exists()


@pytest.mark.django_db
def test_a_copied_event_keeps_its_tie_breaks():
    from tournaments import services

    event = make_event(name="Пятница", tiebreaks=["games", "seed"])
    copy = services.do_copy_event(tournament_id=event.pk)
    assert copy.pk != event.pk and copy.tiebreaks == ["games", "seed"]
