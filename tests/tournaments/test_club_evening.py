"""A whole club evening on the embedded server (issue 15, "Tests"): 12 players at tables of
4, 3 rounds, in which one entrant never connects (forfeited within the grace period,
withdrawn after two absences), one game is adjudicated by the director, one result is
corrected (places, standings and ratings follow), a late entrant joins for round 2, the
director edits the round-2 draft by name; standings recounted by hand in the test.

The steps (and the hand count) are tests/support/club_evening.py's, shared with the same
evening run by real worker and beat processes on PostgreSQL and Redis
(tests/scaleout/test_club_evening_processes.py); here the test drives the clock and calls
the sweep and the finished-game task itself."""

from datetime import timedelta

import pytest

from ratings import services as rating_services
from tests.support import club_evening as evening
from tournaments import absence, services, tasks
from tournaments.models import Entrant, Result, Round, Tournament

from .helpers import latest_game, make_event, make_users, play_game

pytestmark = pytest.mark.django_db


def play_and_record(rt):
    game = play_game(latest_game(rt.table_id))
    tasks.record_game(game.pk)
    return game


def test_a_club_evening(client, director):
    users = make_users(13)
    no_show, late_user = users[11], users[12]
    event = make_event(rounds=3, rated=True, pause_between_rounds=timedelta(minutes=10))
    assert event.no_show_grace == timedelta(minutes=2)
    for user in users[:12]:  # each player enters himself
        services.do_register(tournament_id=event.pk, user=user)
    client.force_login(director)
    assert "Событие начато." in evening.direct(client, event, {"action": "start"})
    event.refresh_from_db()
    assert event.status == Tournament.Status.RUNNING
    absent = Entrant.objects.get(tournament=event, user=no_show)

    # ---------------------------------------------------------------- round 1
    first = evening.tables_of(event, 1)
    assert [len(rt.entrants) for rt in first] == [4, 4, 4]
    evening.players_come(event, 1, no_show)
    forfeit_rt = next(rt for rt in first if absent.pk in rt.entrants)
    adjudicated_rt, played_rt = [rt for rt in first if rt != forfeit_rt]
    dealt = latest_game(forfeit_rt.table_id).started_at
    assert absence.do_forfeit_no_shows(now=dealt + event.no_show_grace - timedelta(seconds=1)) == []
    assert not latest_game(forfeit_rt.table_id).is_over, "within the grace the game waits for him"
    done = absence.do_forfeit_no_shows(now=dealt + event.no_show_grace + timedelta(seconds=1))
    assert any("forfeited by 1 absent" in line for line in done), done
    evening.check_forfeit(forfeit_rt, absent)
    set_places = evening.adjudicate(client, event, adjudicated_rt, director)
    played_game = play_and_record(played_rt)
    assert Round.objects.get(tournament=event, number=1).status == Round.Status.FINISHED
    second = Round.objects.get(tournament=event, number=2)
    assert second.status == Round.Status.SCHEDULED, "the pause: round 2 waits, its draft ready"
    evening.check_round_one(event, adjudicated_rt, forfeit_rt, absent)

    # --------------------------------------------- between rounds 1 and 2
    late = evening.add_late_entrant(client, event, late_user)
    edited = evening.edit_draft(client, event, 2)
    # Between rounds "Start now" names the round it starts (it said "Событие начато.").
    assert "Тур 2 начат." in evening.direct(client, event, {"action": "start"})
    second.refresh_from_db()
    assert second.status == Round.Status.PLAYING
    assert [list(rt.entrants) for rt in evening.tables_of(event, 2)] == edited, "the round starts as edited"

    # ---------------------------------------------------------------- round 2
    evening.players_come(event, 2, no_show)
    forfeit_rt = next(rt for rt in evening.tables_of(event, 2) if absent.pk in rt.entrants)
    dealt = latest_game(forfeit_rt.table_id).started_at
    done = absence.do_forfeit_no_shows(now=dealt + event.no_show_grace + timedelta(seconds=1))
    assert any("withdrawn after 2 absences" in line for line in done), done
    absent.refresh_from_db()
    assert absent.state == Entrant.State.WITHDRAWN and absence.absences(absent.pk) == 2
    for rt in evening.tables_of(event, 2):
        if rt != forfeit_rt:
            play_and_record(rt)
    assert Round.objects.get(tournament=event, number=2).status == Round.Status.FINISHED
    evening.check_round_two(event, absent, late)

    # ------------------------------------ a correction of round 1's played game
    corrected = evening.correct_result(client, event, played_rt, played_game)
    rating_services.recompute(event.variant)
    adjudicated_game = Result.objects.filter(round_table=adjudicated_rt).first().game
    assert evening.rating_mismatches(event, [(played_game, corrected), (adjudicated_game, set_places)]) == []

    # ---------------------------------------------------------------- round 3
    assert "Тур 3 начат." in evening.direct(client, event, {"action": "start"})
    third = evening.tables_of(event, 3)
    assert [len(rt.entrants) for rt in third] == [4, 4, 4], "12 in play: the withdrawn no-show is not seated"
    assert all(absent.pk not in rt.entrants for rt in third)
    assert absent.pk not in Round.objects.get(tournament=event, number=3).byes
    evening.players_come(event, 3, no_show)
    for rt in third:
        play_and_record(rt)
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    evening.check_final(event, absent, late)
