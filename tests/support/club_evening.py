"""The club evening of issue 15 ("Tests"), in steps that any run of it shares: on the
embedded server with the clock driven by the test (tests/tournaments/test_club_evening.py)
and on PostgreSQL + Redis with real worker and beat processes driving it
(tests/scaleout/inner/test_club_evening_processes.py).

The director acts through his page (POST /tournaments/<id>/direct/), the players through
the services (registration, opening their table, their moves). The standings are recounted
here from the places at the tables: 3/2/1/0 at four, 3/2/0 at three (a smaller table keeps
the top places' points and the last place's), shared places share the points of the places
they span, the durak scores nothing, a bye 1.5; Buchholz is the average of the current
points of the opponents met, one count per opponent per table. Messages are compared in
Russian."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from games.models import GameSeat
from games.services import presence
from ratings import counted
from ratings.models import RatingChange
from tournaments import selectors
from tournaments.models import Entrant, Result, Round, RoundTable

#: The event's points table (the default of tables of four), by the table's size.
POINTS = {4: [3.0, 2.0, 1.0, 0.0], 3: [3.0, 2.0, 0.0]}
BYE = 1.5  # the average of 3/2/1/0, rounded to a half point


def make_director():
    """A member of the "Tournament directors" group (made by migration 0002), not a superuser."""
    user = get_user_model().objects.create_user(username="director", is_staff=True)
    user.groups.add(Group.objects.get(name="Tournament directors"))
    return user


def direct(client, event, data):
    answer = client.post(f"/tournaments/{event.pk}/direct/", data, follow=True)
    assert answer.status_code == 200
    return answer.text


def tables_of(event, number) -> list[RoundTable]:
    return list(RoundTable.objects.filter(round__tournament=event, round__number=number).order_by("number"))


def players_come(event, number, absent_user):
    """Everyone seated in round `number` opens his table, except `absent_user`."""
    for rt in tables_of(event, number):
        for entrant in Entrant.objects.filter(pk__in=rt.entrants).select_related("user"):
            if entrant.user != absent_user:
                presence.do_mark_seen(table_id=rt.table_id, user_id=entrant.user_id)


def hand_points(places: dict[int, int], durak: set[int]) -> dict[int, float]:
    """{entrant: place} at one table -> points: a shared place shares the places it spans."""
    table = POINTS[len(places)]
    points = {}
    for pk, place in places.items():
        sharing = sum(1 for p in places.values() if p == place)
        points[pk] = 0.0 if pk in durak else sum(table[place - 1 : place - 1 + sharing]) / sharing
    return points


def hand_count(event) -> dict[int, dict]:
    """The standings recounted from the tables' places: {entrant: {"points", "buchholz"}}."""
    totals = {e.pk: 0.0 for e in event.entrants.all()}
    meetings = []  # (entrant, opponent) once per table of a round
    for round_ in Round.objects.filter(tournament=event).exclude(status=Round.Status.SCHEDULED):
        for rt in round_.tables.all():
            rows = {r.entrant_id: r for r in Result.objects.filter(round_table=rt)}
            if not rows:
                continue
            assert set(rows) == set(rt.entrants), f"round {round_.number}, table {rt.number}: a result per entrant"
            expected = hand_points(
                {pk: r.place for pk, r in rows.items()}, {pk for pk, r in rows.items() if r.is_durak}
            )
            for pk, r in rows.items():
                assert r.points == expected[pk], f"round {round_.number}, table {rt.number}, entrant {pk}"
                totals[pk] += expected[pk]
                meetings += [(pk, other) for other in rt.entrants if other != pk]
        for pk in round_.byes:
            bye = Result.objects.get(round=round_, entrant_id=pk, is_bye=True)
            assert bye.points == BYE
            totals[pk] += BYE
    opponents: dict[int, list[float]] = {pk: [] for pk in totals}
    for pk, other in meetings:
        opponents[pk].append(totals[other])
    return {
        pk: {"points": totals[pk], "buchholz": sum(opponents[pk]) / len(opponents[pk]) if opponents[pk] else 0.0}
        for pk in totals
    }


def check_standings(event):
    """The standings page's lines agree with the hand count, and are ordered by it."""
    counted = hand_count(event)
    lines = selectors.standings_table(event)
    assert {line["entrant"] for line in lines} == set(counted)
    for line in lines:
        mine = counted[line["entrant"]]
        assert line["points"] == pytest.approx(mine["points"]), line["name"]
        assert line["buchholz"] == pytest.approx(mine["buchholz"]), line["name"]
    groups = ["active", "absent", "withdrawn", "disqualified"]
    keys = [(groups.index(line["group"]), -line["points"], -line["buchholz"]) for line in lines]
    assert keys == sorted(keys), "in play first, then by points, then by Buchholz"
    return {line["entrant"]: line for line in lines}


def check_forfeit(forfeit_rt, absent) -> None:
    """The no-show is last with nothing; the three who came share places 1-3."""
    forfeit = {r.entrant_id: r for r in Result.objects.filter(round_table=forfeit_rt)}
    assert (forfeit[absent.pk].place, forfeit[absent.pk].points, forfeit[absent.pk].absent) == (4, 0.0, True)
    assert all((r.place, r.points) == (1, 2.0) for pk, r in forfeit.items() if pk != absent.pk), "3+2+1 shared"


def adjudicate(client, event, rt, director) -> dict[int, int]:
    """The director ends a game by setting the places himself, by name on his page
    (3/2/1/0 from the last seat); returns {entrant: place}."""
    names = selectors.entrant_names(event)
    page = client.get(f"/tournaments/{event.pk}/direct/").text
    assert "Завершить партию: места" in page
    assert all(f">{names[pk]}<" in page for pk in rt.entrants)
    set_places = {pk: place for place, pk in enumerate(reversed(rt.entrants), start=1)}
    form = {"action": "adjudicate", "round_table": rt.pk}
    form.update({f"place-{pk}": str(place) for pk, place in set_places.items()})
    assert "Места назначены, партия записана." in direct(client, event, form)
    adjudicated = {r.entrant_id: r for r in Result.objects.filter(round_table=rt)}
    assert {pk: r.place for pk, r in adjudicated.items()} == set_places
    assert all(r.adjudicated_by == director for r in adjudicated.values())
    return set_places


def check_round_one(event, adjudicated_rt, forfeit_rt, absent) -> None:
    """By hand, the two tables whose places are known: set by the director (3/2/1/0 from the
    last seat), and the forfeit (the three who came share places 1-3: (3+2+1)/3 each)."""
    lines = check_standings(event)
    assert [lines[pk]["points"] for pk in reversed(adjudicated_rt.entrants)] == [3.0, 2.0, 1.0, 0.0]
    assert sorted(lines[pk]["points"] for pk in forfeit_rt.entrants) == [0.0, 2.0, 2.0, 2.0]
    assert lines[absent.pk]["points"] == 0.0 and lines[absent.pk]["buchholz"] == 2.0


def add_late_entrant(client, event, late_user) -> Entrant:
    """Between rounds 1 and 2 the director adds a late entrant (the name typed in capitals)."""
    assert f"Участник {late_user.username} добавлен." in direct(
        client, event, {"action": "late", "username": late_user.username.upper()}
    )
    late = Entrant.objects.get(tournament=event, user=late_user)
    assert late.late and late.joined_round == 2
    return late


def edit_draft(client, event, number: int) -> list[list[int]]:
    """The director previews round `number`'s draft and swaps the first seats of tables 1
    and 2, choosing them by name in the selects; returns the seating as saved."""
    assert "Рассадка следующего тура рассчитана: проверьте, поправьте и опубликуйте её." in direct(
        client, event, {"action": "preview"}
    )
    names = selectors.entrant_names(event)
    drafted = [list(rt.entrants) for rt in tables_of(event, number)]
    byes = list(Round.objects.get(tournament=event, number=number).byes)
    seated = [pk for table in drafted for pk in table] + byes
    assert sorted(seated) == sorted(e.pk for e in event.entrants.all()), "everyone in the draft, late entrant too"
    edited = [list(t) for t in drafted]
    edited[0][0], edited[1][0] = drafted[1][0], drafted[0][0]
    page = client.get(f"/tournaments/{event.pk}/direct/").text
    for pk in (drafted[0][0], drafted[1][0]):
        assert f'<option value="{pk}" selected>{names[pk]}</option>' in page, "each seat by name"
    form = {"action": "draft-edit"}
    for t, table in enumerate(edited, start=1):
        for s, pk in enumerate(table, start=1):
            form[f"seat-{t}-{s}"] = str(pk)
    text = direct(client, event, form)
    assert "Черновик сохранён: повторных пар" in text
    for t, table in enumerate(edited, start=1):
        assert f'<option value="{table[0]}" selected>{names[table[0]]}</option>' in text, t
    return edited


def check_round_two(event, absent, late) -> None:
    lines = check_standings(event)
    assert lines[absent.pk]["state"] == "выбытие" and lines[absent.pk]["group"] == "withdrawn"
    assert lines[late.pk]["late"] and 2 in lines[late.pk]["by_round"]
    assert 1 not in lines[late.pk]["by_round"], "the late entrant has nothing for round 1"


def correct_result(client, event, played_rt, played_game) -> dict[int, int]:
    """The director turns a recorded game's places upside down (a wrongly recorded result):
    places, points, the durak flag, the game's counted places and the standings follow.
    Returns {entrant: corrected place}."""
    before = {r.entrant_id: r.place for r in Result.objects.filter(round_table=played_rt)}
    ranked = sorted(played_rt.entrants, key=lambda pk: (before[pk], pk))
    corrected = {pk: len(ranked) - i for i, pk in enumerate(ranked)}
    form = {"action": "places", "table": played_rt.pk, "game": 1, "reason": "неверно записан итог"}
    form.update({f"place-{pk}": str(place) for pk, place in corrected.items()})
    assert "Итог партии исправлен." in direct(client, event, form)
    after = {r.entrant_id: r for r in Result.objects.filter(round_table=played_rt)}
    assert {pk: r.place for pk, r in after.items()} == corrected
    assert {pk: r.points for pk, r in after.items()} == {pk: POINTS[4][p - 1] for pk, p in corrected.items()}
    assert [pk for pk, r in after.items() if r.is_durak] == [ranked[0]], "the durak follows the places"
    check_standings(event)
    seats = {s.number: s.counted_place for s in GameSeat.objects.filter(game=played_game)}
    assert seats == {n: corrected[pk] for n, pk in enumerate(played_rt.entrants)}
    return corrected


def rating_mismatches(event, games_places) -> list[str]:
    """Where the rating changes disagree with the places: `games_places` is
    [(game, {entrant: place})]; a forfeited game must not be rated at all. Empty when
    the ratings follow the (corrected, adjudicated) outcome."""
    wrong = []
    for game, places in games_places:
        users = {e.pk: e.user for e in Entrant.objects.filter(pk__in=places).select_related("user")}
        game.refresh_from_db()
        if not counted.counts((game.result or {}).get("ended"), game.move_count):
            # Decided before real play (ratings.counted): nobody's rating may move on it.
            if RatingChange.objects.filter(game=game).exists():
                wrong.append(f"game {game.pk} was decided before real play and is rated")
            continue
        for pk, place in places.items():
            change = RatingChange.objects.filter(game=game, user=users[pk]).first()
            if change is None or change.place != place:
                wrong.append(f"game {game.pk}, {users[pk]}: {change and change.place} for place {place}")
    forfeited = Result.objects.filter(round__tournament=event, absent=True).values_list("game_id", flat=True)
    if RatingChange.objects.filter(game_id__in=forfeited).exists():
        wrong.append("a forfeit is rated")
    return wrong


def check_final(event, absent, late) -> None:
    lines = check_standings(event)
    assert lines[late.pk]["points"] == pytest.approx(sum(lines[late.pk]["by_round"].values()))
    assert lines[absent.pk]["rank"] == 13, "the withdrawn entrant last"
