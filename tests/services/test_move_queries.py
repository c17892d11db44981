"""The move path's database work, pinned: how many statements a move costs, and the lock.

Every move, whoever makes it, is one transaction: read the game row (locked)
with its table and host, read the seats with their users, then write. The
counts below are for a move inside a test's transaction, so `transaction.atomic`
shows as a SAVEPOINT and its RELEASE. What runs after the commit (the table's
snapshot for the sockets, the nudge to a worker) is counted too: it must read
nothing, since it is built from the rows the move already holds.

PostgreSQL holds the game row with SELECT ... FOR UPDATE until the move commits,
so two moves at once are applied one after the other; the last test checks that
on a real server (in a subprocess: Django reads its settings once per process).
SQLite has no FOR UPDATE: the settings open every transaction with BEGIN
IMMEDIATE, which serialises writers instead.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import DatabaseError, connection, transaction

from games import bots, engine
from games.models import Game
from games.services import play, store, tables
from tests.support.games import latest_game, make_user, new_table, two_player_rules

ROOT = Path(__file__).resolve().parents[2]
INNER = "DURAK_MOVE_LOCK_INNER"  # set in the subprocess of the PostgreSQL lock test
SECOND = timedelta(seconds=1)

# The statements of one move, in order: the two reads, then the writes.
PLAYER_MOVE = [
    "SAVEPOINT",
    "SELECT games_game",  # FOR UPDATE on PostgreSQL; the table and its host joined
    "SELECT games_gameseat",  # the users joined
    "INSERT games_move",
    "UPDATE games_game",
    "RELEASE SAVEPOINT",
]
# T7: the seat's timeouts in a row; an expired deadline also reads the sweep's heartbeat (was the
# site down?) and whether the awaited player is offline (his one extra wait: issue 17, fair clocks).
TIMEOUT_MOVE = (
    PLAYER_MOVE[:2]
    + ["SELECT games_sweepheartbeat", "SELECT games_gameseat", "SELECT games_tableseat", "UPDATE games_gameseat"]
    + PLAYER_MOVE[3:]
)


def statements(queries) -> list[str]:
    """Each captured statement as its verb and table: "SELECT games_game", "SAVEPOINT"."""
    shapes = []
    for query in queries:
        sql = query["sql"].replace('"', "").replace("`", "")
        savepoint = re.match(r"(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT) ", sql)
        if savepoint:
            shapes.append(savepoint.group(1))
            continue
        verb = sql.split(None, 1)[0].upper()
        table = re.search(r"\b(?:FROM|INTO|UPDATE)\s+(\w+)", sql, re.IGNORECASE)
        shapes.append(f"{verb} {table.group(1)}" if table else verb)
    return shapes


def deal(users, *, bot_seats=None, turn_seconds=None) -> Game:
    """A game of two (the first user hosts), dealt."""
    return latest_game(new_table(two_player_rules(), users, bot_seats=bot_seats, turn_seconds=turn_seconds))


def a_choice(game: Game, seat: int) -> str:
    """A legal action of the seat (the first the engine lists: these tests need any)."""
    return str(engine.Game.from_json(game.state_json).legal_actions(seat)[0])


def a_bot_level() -> str:
    return bots.BOT_LEVELS[0][0]  # the weakest: no search


@pytest.mark.django_db
def test_a_players_move_is_two_reads_and_two_writes(django_assert_num_queries, django_capture_on_commit_callbacks):
    users = [make_user("anna"), make_user("boris")]
    game = deal(users)
    seat = engine.Game.from_json(game.state_json).to_move()[0]
    action = a_choice(game, seat)

    with (
        django_assert_num_queries(len(PLAYER_MOVE)) as captured,
        django_capture_on_commit_callbacks(execute=True) as callbacks,
    ):
        play.do_player_move(game_id=game.pk, user=users[seat], action=action)

    assert statements(captured.captured_queries) == PLAYER_MOVE
    assert callbacks, "the table hears of the move after the commit"
    game.refresh_from_db()
    assert game.move_count == 1


@pytest.mark.django_db
def test_a_bot_move_costs_what_a_players_move_costs(django_assert_num_queries, django_capture_on_commit_callbacks):
    person = make_user("anna")
    game = deal([person, None], bot_seats={1: a_bot_level()})
    # The person plays until the bot is the one awaited.
    while 1 not in engine.Game.from_json(game.state_json).to_move():
        play.do_player_move(game_id=game.pk, user=person, action=a_choice(game, 0))
        game.refresh_from_db()
    moves_before = game.move_count

    with django_assert_num_queries(len(PLAYER_MOVE)) as captured, django_capture_on_commit_callbacks(execute=True):
        made = play.do_advance_game(game_id=game.pk, now=game.bot_due_at + SECOND)

    assert made == 1
    assert statements(captured.captured_queries) == PLAYER_MOVE
    game.refresh_from_db()
    assert game.move_count == moves_before + 1


@pytest.mark.django_db
def test_a_timeout_adds_only_the_seats_count_of_timeouts(django_assert_num_queries, django_capture_on_commit_callbacks):
    game = deal([make_user("anna"), make_user("boris")], turn_seconds=15)

    with django_assert_num_queries(len(TIMEOUT_MOVE)) as captured, django_capture_on_commit_callbacks(execute=True):
        made = play.do_advance_game(game_id=game.pk, now=game.deadline + SECOND)

    assert made == 1  # T7: the opener's lowest card, played for him
    assert statements(captured.captured_queries) == TIMEOUT_MOVE


@pytest.mark.django_db
def test_a_move_for_a_game_that_is_not_there_reads_once_and_writes_nothing(django_assert_num_queries):
    anna = make_user("anna")
    refused_early = ["SAVEPOINT", "ROLLBACK TO SAVEPOINT", "RELEASE SAVEPOINT"]
    with django_assert_num_queries(4) as captured, pytest.raises(play.MoveRefused) as refused:
        play.do_player_move(game_id=10**12, user=anna, action="take")
    assert statements(captured.captured_queries) == refused_early[:1] + ["SELECT games_game"] + refused_early[1:]
    assert str(refused.value) == "Такой игры нет."
    for bad_id in ("7; DROP TABLE games_game", "", -1, 0, 2**63, 2.0, None, True):  # refused before any query
        with django_assert_num_queries(3) as captured, pytest.raises(play.MoveRefused) as refused:
            play.do_player_move(game_id=bad_id, user=anna, action="take")
        assert statements(captured.captured_queries) == refused_early
        assert str(refused.value) == "Такой игры нет."


@pytest.mark.django_db
def test_the_rows_of_the_move_path_are_the_orms_rows(django_assert_num_queries):
    """The prepared reads give what the ORM gives: same values, same types, relations loaded."""
    anna, boris = make_user("anna"), make_user("boris")
    hosted = deal([anna, boris], turn_seconds=30)
    hostless_table = tables.do_create_table(
        rules=two_player_rules(), seat_users=[anna, None], bot_seats={1: a_bot_level()}, start=True
    )
    hostless = latest_game(hostless_table)  # no host: the LEFT JOIN finds no user

    def same(mine, orms):
        assert type(mine) is type(orms)
        for field in type(orms)._meta.concrete_fields:
            value, expected = getattr(mine, field.attname), getattr(orms, field.attname)
            assert value == expected and type(value) is type(expected), field.name
        assert (mine._state.db, mine._state.adding) == (orms._state.db, orms._state.adding)

    for game in (hosted, hostless):
        expected = Game.objects.select_related("table__host").get(pk=game.pk)
        expected_seats = list(expected.seats.select_related("user").order_by("number"))
        with django_assert_num_queries(2), transaction.atomic(savepoint=False):
            (mine,) = store.LOCKED_GAME.fetch(game.pk)
            seats = store.GAME_SEATS.fetch(game.pk)
            # Everything a move and its snapshot read is loaded: no further query.
            same(mine, expected)
            same(mine.table, expected.table)
            assert (mine.table.host is None) == (expected.table.host is None)
            if expected.table.host is not None:
                same(mine.table.host, expected.table.host)
            assert [s.number for s in seats] == [s.number for s in expected_seats]
            for seat, expected_seat in zip(seats, expected_seats, strict=True):
                same(seat, expected_seat)
                assert (seat.user is None) == (expected_seat.user is None)
                if expected_seat.user is not None:
                    same(seat.user, expected_seat.user)


# ---------------------------------------------------------------- the lock, on PostgreSQL


def test_a_move_holds_the_game_row_locked_until_it_commits_on_postgresql(postgres_url):
    pg = urlsplit(postgres_url)
    # A database name of this run's own (pytest-django creates test_<name> and drops it).
    database_url = urlunsplit((pg.scheme, pg.netloc, f"/durak_move_lock_{os.getpid()}", "", ""))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "PYTEST_ADDOPTS", "CELERY_EMBEDDED", "PYTEST_CURRENT_TEST"}
    }
    env.update({"DATABASE_URL": database_url, INNER: "1"})
    test = f"{Path(__file__).relative_to(ROOT)}::test_inner_the_game_row_is_locked_while_a_move_runs"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider", "-o", "addopts="],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert re.search(r"\b1 passed\b", output), output


if os.environ.get(INNER) == "1":  # collected only in the subprocess above, on PostgreSQL

    @pytest.mark.django_db(transaction=True)
    def test_inner_the_game_row_is_locked_while_a_move_runs():
        assert connection.vendor == "postgresql"
        users = [make_user("anna"), make_user("boris")]
        game = deal(users)
        seat = engine.Game.from_json(game.state_json).to_move()[0]
        action = a_choice(game, seat)
        read, go_on = threading.Event(), threading.Event()
        outcome = {}

        def pause_after_reading_the_game(execute, sql, params, many, context):
            result = execute(sql, params, many, context)
            if not read.is_set() and re.match(r'SELECT .* FROM "games_game"', sql):
                read.set()
                go_on.wait(30)
            return result

        def move():
            try:
                with connection.execute_wrapper(pause_after_reading_the_game):
                    outcome["result"] = play.do_player_move(game_id=game.pk, user=users[seat], action=action)
            except Exception as error:  # reported by the main thread
                outcome["error"] = error
            finally:
                connection.close()

        mover = threading.Thread(target=move)
        mover.start()
        try:
            assert read.wait(30), "the move never read its game"
            # The move has read its game and not committed: the row is not to be had.
            with pytest.raises(DatabaseError, match="lock"), transaction.atomic():
                Game.objects.select_for_update(nowait=True).get(pk=game.pk)
        finally:
            go_on.set()
            mover.join(30)
        assert "error" not in outcome, outcome
        # Committed: the row is free again, and holds the move.
        with transaction.atomic():
            assert Game.objects.select_for_update(nowait=True).get(pk=game.pk).move_count == 1
