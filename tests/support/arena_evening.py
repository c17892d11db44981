"""Issue 20, "Tests": an arena of 20 players at tables of four, run by Celery alone: the
embedded worker and beat on SQLite (tests/tournaments/inner/test_arena_in_process.py), and
again with real worker and beat processes on PostgreSQL + Redis
(tests/scaleout/inner/test_arena_processes.py).

Nobody calls a task or a service of the event here: beat's sweep starts the arena at its
time and deals the first tables; the players (this thread) play every game dealt to them
through the play service, move by move, as a heuristic bot would (each move read and made
with the game row locked: tests.tournaments.helpers.player_move; a table the thread is not at
meanwhile runs out of turn time, and the worker's timeout move comes before the read or after
the move, never between them); the worker records each
finished game (the game_finished signal's task) and runs the seating pass it nudges, which
deals the next tables. The arena lasts five minutes: after `PLAY_SECONDS` of real play the
rest of its time is skipped (its start is moved back, so that its end comes a few seconds
later: the five minutes are simulated), and then no new game may be dealt, the games in
play finish and count, and the event finishes by itself.

What is checked, from the database: every game dealt was recorded, with a result per entrant
and the points `formats.arena_score` gives (recounted here from the places); nobody sat at two
tables at once; nobody waited long between two games (the core keeps a player at most
`formats.MIN_WAIT_S` for a fuller table; the nudges, not the 5-second sweep, seat him); no
game was dealt after the end.
"""

from __future__ import annotations

import statistics
import time
from datetime import timedelta

from django.utils import timezone

from games.models import Game
from tests.tournaments.helpers import make_event, make_users, play_game
from tournaments import formats, services
from tournaments.models import Entrant, Result, Round, RoundTable, Tournament

PLAYERS = 20
TABLE_SIZE = 4
PLAY_SECONDS = 40  # of real play before the rest of the five minutes is skipped
END_AFTER = timedelta(seconds=4)  # from the skip to the end
FINISH_WITHIN = 240  # seconds after the skip: the games in play played out on a loaded machine, recorded
# The longest wait between two games a player may have: the core's wait for a fuller table,
# and time for a recording, a nudge and a pass on a loaded machine.
LONGEST_WAIT = formats.MIN_WAIT_S + 10
MEAN_WAIT = formats.MIN_WAIT_S + 3


def make_arena(starts_in: timedelta = timedelta(seconds=3)) -> Tournament:
    users = make_users(PLAYERS, prefix="a")
    event = make_event(
        name="Арена пятницы",
        format=Tournament.Format.ARENA,
        arena_minutes=5,
        table_size=TABLE_SIZE,
        rounds=1,
        starts_at=timezone.now() + timedelta(hours=1),
    )
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    # The start is set once everyone has entered (a loaded machine may take seconds for twenty).
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() + starts_in)
    event.refresh_from_db()
    return event


def wait_for(check, what: str, seconds: float):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"waited {seconds:.0f} s for {what}"
        time.sleep(0.1)


def games_in_play(event) -> list[Game]:
    tables = RoundTable.objects.filter(round__tournament=event, done=False, table__isnull=False)
    return list(Game.objects.filter(table_id__in=tables.values("table_id"), status=Game.Status.PLAYING))


def play_the_arena(event) -> dict:
    """Play every game dealt until the arena is over; returns what was measured."""
    wait_for(
        lambda: Round.objects.filter(tournament=event, status=Round.Status.PLAYING).exists(),
        "beat to start the arena",
        40,
    )
    started = time.monotonic()
    skipped = False
    played = 0
    while True:
        event.refresh_from_db()
        if event.status == Tournament.Status.FINISHED:
            break
        if not skipped and time.monotonic() - started >= PLAY_SECONDS:
            ends_at = skip_to_the_end(event)
            skipped = True
            # The games in play now are still on when the time is up: they must finish and count.
            time.sleep(max(0.0, (ends_at - timezone.now()).total_seconds()) + 0.5)
        for game in games_in_play(event):
            play_game(game)
            played += 1
        if skipped:
            assert time.monotonic() - started < PLAY_SECONDS + FINISH_WITHIN, f"not finished: {where_it_stands(event)}"
        time.sleep(0.05)
    return {"played": played}


def where_it_stands(event) -> dict:
    """For a failure's message: the event, its open tables and their games, its failing steps."""
    from tournaments.models import StuckStep

    event.refresh_from_db()
    open_tables = RoundTable.objects.filter(round__tournament=event, done=False)
    return {
        "status": event.status,
        "ends_at": event.arena_ends_at,
        "now": timezone.now(),
        "open": [
            (rt.number, rt.entrants, list(Game.objects.filter(table_id=rt.table_id).values_list("pk", "status")))
            for rt in open_tables
        ],
        "stuck": list(StuckStep.objects.filter(tournament=event).values_list("step", "round_table_id", "error")),
    }


def skip_to_the_end(event):
    """The rest of the five minutes is simulated: the arena's start moves back, its end comes soon."""
    ends_at = timezone.now() + END_AFTER
    started_at = ends_at - timedelta(minutes=event.arena_minutes)
    Tournament.objects.filter(pk=event.pk).update(started_at=started_at)
    Round.objects.filter(tournament=event).update(ends_at=ends_at)
    return ends_at


def hand_points(event) -> dict[int, float]:
    """Each entrant's points recounted from the places, game by game in the order played: at
    four 3/2/1/0 (a shared place shares the points it spans), the durak nothing, doubled after
    two games won in a row (first alone) until a game not won."""
    by_place = {2: [1, 0], 3: [2, 1, 0], 4: [3, 2, 1, 0]}
    totals: dict[int, float] = {}
    streak: dict[int, int] = {}
    for rt in RoundTable.objects.filter(round__tournament=event).order_by("number"):
        results = list(Result.objects.filter(round_table=rt))
        size = len(rt.entrants)
        for r in results:
            sharing = sum(1 for other in results if other.place == r.place)
            points = 0.0
            if not (r.absent or r.is_durak) and r.place + sharing - 1 <= size:
                points = sum(by_place[size][r.place - 1 : r.place - 1 + sharing]) / sharing
            if streak.get(r.entrant_id, 0) >= 2:
                points *= 2
            won = r.place == 1 and sharing == 1 and not r.absent
            streak[r.entrant_id] = streak.get(r.entrant_id, 0) + 1 if won else 0
            totals[r.entrant_id] = totals.get(r.entrant_id, 0.0) + points
    return totals


def check_the_arena(event) -> dict:
    """Every check of the module docstring; returns the measured waits and counts."""
    event.refresh_from_db()
    assert event.status == Tournament.Status.FINISHED
    ends_at = event.arena_ends_at
    tables = list(RoundTable.objects.filter(round__tournament=event).order_by("number"))
    assert tables and all(rt.done for rt in tables), "every table's game recorded"
    games = {g.table_id: g for g in Game.objects.filter(table_id__in=[rt.table_id for rt in tables])}
    assert len(games) == len(tables), "one game a table"
    for rt in tables:
        game = games[rt.table_id]
        assert game.status == Game.Status.FINISHED
        assert game.started_at < ends_at, f"table {rt.number} dealt after the end"
        results = Result.objects.filter(round_table=rt, game=game)
        assert sorted(results.values_list("entrant_id", flat=True)) == sorted(rt.entrants), "a result per entrant"
        assert 2 <= len(rt.entrants) <= TABLE_SIZE
    assert any(games[rt.table_id].finished_at > ends_at for rt in tables), "games in play at the end counted"

    # Nobody at two tables at once; the waits between one's games.
    spans: dict[int, list[tuple]] = {}
    for rt in tables:
        game = games[rt.table_id]
        for pk in rt.entrants:
            spans.setdefault(pk, []).append((game.started_at, game.finished_at))
    waits = []
    for pk, mine in spans.items():
        mine.sort()
        for (_s1, f1), (s2, _f2) in zip(mine, mine[1:], strict=False):
            assert s2 >= f1, f"entrant {pk} seated at a second table before his game ended"
            waits.append((s2 - f1).total_seconds())
        last_end = mine[-1][1]
        if last_end < ends_at:  # free before the end and never seated again: he waited until the end
            waits.append((ends_at - last_end).total_seconds())
    entrants = set(Entrant.objects.filter(tournament=event).values_list("pk", flat=True))
    assert set(spans) == entrants, "everyone played"
    assert max(waits) <= LONGEST_WAIT, f"a wait of {max(waits):.1f} s"
    assert statistics.mean(waits) <= MEAN_WAIT, f"a mean wait of {statistics.mean(waits):.1f} s"

    # The points: the stored ones are the hand count's.
    stored: dict[int, float] = {}
    for r in Result.objects.filter(round__tournament=event):
        stored[r.entrant_id] = stored.get(r.entrant_id, 0.0) + r.points
    assert stored == hand_points(event)
    return {
        "tables": len(tables),
        "mean_wait_s": statistics.mean(waits),
        "max_wait_s": max(waits),
        "games_per_player": statistics.mean(len(s) for s in spans.values()),
    }


def two_passes_at_once(event) -> list[int]:
    """Two seating passes started at the same moment in two threads (two nudges delivered at
    once), each with its own database connection; returns what each dealt."""
    import threading

    from django.db import connection

    barrier = threading.Barrier(2)
    dealt: list[int] = []
    errors: list[BaseException] = []
    later = timezone.now() + timedelta(seconds=formats.MIN_WAIT_S + 1)

    def one_pass():
        try:
            barrier.wait(10)
            dealt.append(services.do_arena_seating_pass(tournament_id=event.pk, now=later))
        except BaseException as error:  # reported by the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=one_pass) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    return sorted(dealt)
