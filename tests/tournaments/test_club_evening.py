"""A whole club evening on the embedded server (issue 15, "Tests"): 12 players at tables of
4, 3 rounds, in which one entrant never connects (forfeited within the grace period,
withdrawn after two absences), one game is adjudicated by the director, one result is
corrected (places, standings and ratings follow), a late entrant joins for round 2, the
director edits the round-2 draft by name; standings recounted by hand in the test.

The director acts through his page (POST /tournaments/<id>/direct/), the players through
the services (registration, opening their table, their moves). After each round the
standings are recounted here from the places at the tables: 3/2/1/0 at four, 3/2/0 at
three (a smaller table keeps the top places' points and the last place's), shared places
share the points of the places they span, the durak scores nothing, a bye 1.5; Buchholz is
the average of the current points of the opponents met, one count per opponent per table.
Messages are compared in Russian."""

from datetime import timedelta

import pytest

from games.models import GameSeat
from games.services import presence
from ratings import services as rating_services
from ratings.models import RatingChange
from tournaments import absence, selectors, services, tasks
from tournaments.models import Entrant, Result, Round, RoundTable, Tournament

from .helpers import latest_game, make_event, make_users, play_game

pytestmark = pytest.mark.django_db

#: The event's points table (the default of tables of four), by the table's size.
POINTS = {4: [3.0, 2.0, 1.0, 0.0], 3: [3.0, 2.0, 0.0]}
BYE = 1.5  # the average of 3/2/1/0, rounded to a half point


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


def play_and_record(rt):
    game = play_game(latest_game(rt.table_id))
    tasks.record_game(game.pk)
    return game


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


def test_a_club_evening(client, director):
    users = make_users(13)
    no_show, late_user = users[11], users[12]
    event = make_event(rounds=3, rated=True, pause_between_rounds=timedelta(minutes=10))
    assert event.no_show_grace == timedelta(minutes=2)
    for user in users[:12]:  # each player enters himself
        services.do_register(tournament_id=event.pk, user=user)
    client.force_login(director)
    assert "Событие начато." in direct(client, event, {"action": "start"})
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    absent = Entrant.objects.get(tournament=event, user=no_show)
    names = selectors.entrant_names(event)

    # ---------------------------------------------------------------- round 1
    first = tables_of(event, 1)
    assert [len(rt.entrants) for rt in first] == [4, 4, 4]
    players_come(event, 1, no_show)
    forfeit_rt = next(rt for rt in first if absent.pk in rt.entrants)
    others = [rt for rt in first if rt != forfeit_rt]
    adjudicated_rt, played_rt = others
    dealt = latest_game(forfeit_rt.table_id).started_at
    assert absence.do_forfeit_no_shows(now=dealt + event.no_show_grace - timedelta(seconds=1)) == []
    assert not latest_game(forfeit_rt.table_id).is_over, "within the grace the game waits for him"
    done = absence.do_forfeit_no_shows(now=dealt + event.no_show_grace + timedelta(seconds=1))
    assert any("forfeited by 1 absent" in line for line in done), done
    forfeit = {r.entrant_id: r for r in Result.objects.filter(round_table=forfeit_rt)}
    assert (forfeit[absent.pk].place, forfeit[absent.pk].points, forfeit[absent.pk].absent) == (4, 0.0, True)
    assert all((r.place, r.points) == (1, 2.0) for pk, r in forfeit.items() if pk != absent.pk), "3+2+1 shared"

    # The director ends one game by setting the places himself, by name on his page.
    page = client.get(f"/tournaments/{event.pk}/direct/").text
    assert "Завершить партию: места" in page
    assert all(f">{names[pk]}<" in page for pk in adjudicated_rt.entrants)
    set_places = {pk: place for place, pk in enumerate(reversed(adjudicated_rt.entrants), start=1)}
    form = {"action": "adjudicate", "round_table": adjudicated_rt.pk}
    form.update({f"place-{pk}": str(place) for pk, place in set_places.items()})
    assert "Места назначены, партия записана." in direct(client, event, form)
    adjudicated = {r.entrant_id: r for r in Result.objects.filter(round_table=adjudicated_rt)}
    assert {pk: r.place for pk, r in adjudicated.items()} == set_places
    assert all(r.adjudicated_by == director for r in adjudicated.values())

    played_game = play_and_record(played_rt)
    assert Round.objects.get(tournament=event, number=1).status == Round.Status.FINISHED
    second = Round.objects.get(tournament=event, number=2)
    assert second.status == Round.Status.SCHEDULED, "the pause: round 2 waits, its draft ready"
    lines = check_standings(event)
    # By hand, the two tables whose places are known: set by the director (3/2/1/0 from the
    # last seat), and the forfeit (the three who came share places 1-3: (3+2+1)/3 each).
    assert [lines[pk]["points"] for pk in reversed(adjudicated_rt.entrants)] == [3.0, 2.0, 1.0, 0.0]
    assert sorted(lines[pk]["points"] for pk in forfeit_rt.entrants) == [0.0, 2.0, 2.0, 2.0]
    assert lines[absent.pk]["points"] == 0.0 and lines[absent.pk]["buchholz"] == 2.0

    # --------------------------------------------- between rounds 1 and 2
    assert f"Участник {late_user.username} добавлен." in direct(
        client, event, {"action": "late", "username": late_user.username.upper()}
    )
    late = Entrant.objects.get(tournament=event, user=late_user)
    assert late.late and late.joined_round == 2
    names = selectors.entrant_names(event)
    assert "Рассадка следующего тура рассчитана: проверьте, поправьте и опубликуйте её." in direct(
        client, event, {"action": "preview"}
    )
    drafted = [list(rt.entrants) for rt in tables_of(event, 2)]
    seated = [pk for table in drafted for pk in table] + list(Round.objects.get(pk=second.pk).byes)
    assert sorted(seated) == sorted(e.pk for e in event.entrants.all()), "13 in round 2: the late entrant too"
    # The director swaps the first seats of tables 1 and 2, choosing them by name in the selects.
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
    # Between rounds "Start now" names the round it starts (it said "Событие начато.").
    assert "Тур 2 начат." in direct(client, event, {"action": "start"})
    second.refresh_from_db()
    assert second.status == Round.Status.PLAYING
    assert [list(rt.entrants) for rt in tables_of(event, 2)] == edited, "the round starts as edited"

    # ---------------------------------------------------------------- round 2
    players_come(event, 2, no_show)
    forfeit_rt = next(rt for rt in tables_of(event, 2) if absent.pk in rt.entrants)
    dealt = latest_game(forfeit_rt.table_id).started_at
    done = absence.do_forfeit_no_shows(now=dealt + event.no_show_grace + timedelta(seconds=1))
    assert any("withdrawn after 2 absences" in line for line in done), done
    absent.refresh_from_db()
    assert absent.state == Entrant.State.WITHDRAWN and absence.absences(absent.pk) == 2
    for rt in tables_of(event, 2):
        if rt != forfeit_rt:
            play_and_record(rt)
    assert Round.objects.get(tournament=event, number=2).status == Round.Status.FINISHED
    lines = check_standings(event)
    assert lines[absent.pk]["state"] == "выбытие" and lines[absent.pk]["group"] == "withdrawn"
    assert lines[late.pk]["late"] and 2 in lines[late.pk]["by_round"]
    assert 1 not in lines[late.pk]["by_round"], "the late entrant has nothing for round 1"

    # ------------------------------------ a correction of round 1's played game
    before = {r.entrant_id: r.place for r in Result.objects.filter(round_table=played_rt)}
    ranked = sorted(played_rt.entrants, key=lambda pk: (before[pk], pk))
    corrected = {pk: len(ranked) - i for i, pk in enumerate(ranked)}  # upside down
    form = {"action": "places", "table": played_rt.pk, "game": 1, "reason": "неверно записан итог"}
    form.update({f"place-{pk}": str(place) for pk, place in corrected.items()})
    assert "Итог партии исправлен." in direct(client, event, form)
    after = {r.entrant_id: r for r in Result.objects.filter(round_table=played_rt)}
    assert {pk: r.place for pk, r in after.items()} == corrected
    assert {pk: r.points for pk, r in after.items()} == {pk: POINTS[4][p - 1] for pk, p in corrected.items()}
    assert [pk for pk, r in after.items() if r.is_durak] == [ranked[0]], "the durak follows the places"
    check_standings(event)  # the standings follow
    seats = {s.number: s.counted_place for s in GameSeat.objects.filter(game=played_game)}
    assert seats == {n: corrected[pk] for n, pk in enumerate(played_rt.entrants)}
    rating_services.recompute(event.variant)
    users_of = {e.pk: e.user for e in Entrant.objects.filter(pk__in=played_rt.entrants).select_related("user")}
    for pk, place in corrected.items():
        change = RatingChange.objects.get(game=played_game, user=users_of[pk])
        assert change.place == place, "the ratings use the corrected places"
    adjudicated_game = adjudicated[adjudicated_rt.entrants[0]].game
    for pk, place in set_places.items():
        entrant = Entrant.objects.get(pk=pk)
        assert RatingChange.objects.get(game=adjudicated_game, user=entrant.user).place == place
    forfeited_games = Result.objects.filter(round__tournament=event, absent=True).values_list("game_id", flat=True)
    assert not RatingChange.objects.filter(game_id__in=forfeited_games).exists(), "a forfeit is not rated"

    # ---------------------------------------------------------------- round 3
    assert "Тур 3 начат." in direct(client, event, {"action": "start"})
    third = tables_of(event, 3)
    assert [len(rt.entrants) for rt in third] == [4, 4, 4], "12 in play: the withdrawn no-show is not seated"
    assert all(absent.pk not in rt.entrants for rt in third)
    assert absent.pk not in Round.objects.get(tournament=event, number=3).byes
    players_come(event, 3, no_show)
    for rt in third:
        play_and_record(rt)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    lines = check_standings(event)
    assert lines[late.pk]["points"] == pytest.approx(sum(lines[late.pk]["by_round"].values()))
    assert lines[absent.pk]["rank"] == 13, "the withdrawn entrant last"
