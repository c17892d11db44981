"""Two actions at the same moment, on real concurrent connections.

Runs in a subprocess (see tests/scaleout/runner.py) against a file SQLite
database (WAL, BEGIN IMMEDIATE) or PostgreSQL (SELECT ... FOR UPDATE): each
move is one transaction with the game row locked, so concurrent moves are
applied one after the other and the later one is judged against the new state.
"""

from __future__ import annotations

import random
import threading
import time

import pytest
from django.db import connection

from games import engine, positions
from games.models import Game, Move
from games.services import play, tables
from tests.support.games import fresh, latest_game, make_user, moves

pytestmark = pytest.mark.django_db(transaction=True)

HOLD_SECONDS = 0.4  # how long the first mover keeps the lock in these tests


def find_double_throw_in(rules: engine.Rules):
    """A deal and moves after which two throwers can each add a card, but not both.

    The first bout allows `first_bout_limit` attack cards (R12); the table
    holds one fewer, all covered, and two seats hold a card of a rank on it.
    """
    for i in range(5000):
        seed = f"double-throw-in-{i}"
        position = engine.Game.new(rules, seed=seed)
        rng = random.Random(i)
        log = []
        while not position.is_over and position.first_bout:
            table = position.table
            if (
                len(table) == position.attack_limit - 1
                and all(d for _, d in table)
                and len(position.hand(position.defender)) >= 2
            ):
                throws = {}
                for seat in range(rules.players):
                    options = [a for a in position.legal_actions(seat) if a.kind == "attack"]
                    if options and seat != position.defender:
                        throws[seat] = str(options[0])
                if len(throws) == 2:
                    return seed, log, throws
            seat = position.to_move()[0]
            options = position.legal_actions(seat)
            preferred = [a for a in options if a.kind in ("attack", "defend")]
            action = rng.choice(preferred or options)
            position.act(seat, action)
            log.append((seat, str(action)))
    raise AssertionError("no deal found for two simultaneous throw-ins")


def run_at_once(calls: dict, hold_first: bool, monkeypatch) -> dict:
    """Run the calls in threads released together; the first to get the game lock
    keeps it HOLD_SECONDS (so the others really wait on it). Returns per key:
    (outcome, value, seconds taken)."""
    if hold_first:
        real_position_of = play.position_of
        entered = []
        guard = threading.Lock()

        def slow_position_of(game):  # called only with the game row locked
            with guard:
                entered.append(threading.current_thread().name)
                first = len(entered) == 1
            position = real_position_of(game)
            if first:
                time.sleep(HOLD_SECONDS)
            return position

        monkeypatch.setattr(play, "position_of", slow_position_of)
    barrier = threading.Barrier(len(calls))
    results = {}

    def run(key, call):
        barrier.wait()
        start = time.monotonic()
        try:
            value = call()
            results[key] = ("applied", value, time.monotonic() - start)
        except play.MoveRefused as refusal:
            results[key] = ("refused", refusal.code, time.monotonic() - start)
        except Exception as error:
            results[key] = ("error", repr(error), time.monotonic() - start)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(k, c), name=f"mover-{k}") for k, c in calls.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def test_two_throw_ins_past_the_limit_at_once_leave_exactly_one(monkeypatch):
    rules = engine.Rules(variant="podkidnoy", players=3)
    seed, log, throws = find_double_throw_in(rules)
    monkeypatch.setattr(tables, "new_seed", lambda: seed)
    users = [make_user(f"thrower{i}") for i in range(3)]
    table = tables.do_create_table(rules=rules, host=users[0], seat_users=users, start=True)
    game = latest_game(table)
    for seat, action in log:
        play.do_player_move(game_id=game.pk, user=users[seat], action=action)
    before = positions.position_of(fresh(game))
    assert len(before.table) == before.attack_limit - 1
    for seat, action in throws.items():  # each alone would be accepted
        assert action in before.legal_actions(seat)

    results = run_at_once(
        {
            seat: (lambda s=seat, a=action: play.do_player_move(game_id=game.pk, user=users[s], action=a))
            for seat, action in throws.items()
        },
        hold_first=True,
        monkeypatch=monkeypatch,
    )

    outcomes = sorted(r[0] for r in results.values())
    assert outcomes == ["applied", "refused"], results
    (winner,) = [s for s, r in results.items() if r[0] == "applied"]
    (loser,) = [s for s, r in results.items() if r[0] == "refused"]
    game = fresh(game)
    assert game.move_count == len(log) + 1
    assert moves(game)[-1] == (winner, throws[winner], Move.Source.PLAYER)
    after = positions.replay(game)
    assert len(after.table) == after.attack_limit
    assert after == engine.Game.from_json(game.state_json)
    # The refusal is the engine's, judged against the position the winner left.
    with pytest.raises(engine.IllegalAction) as judged:
        after.copy().act(loser, throws[loser])
    assert results[loser][1] == judged.value.code
    # ... and it waited for the lock the winner held (HOLD_SECONDS) before being judged.
    assert results[loser][2] >= HOLD_SECONDS * 0.8, results


def test_a_burst_of_the_same_move_is_applied_once(monkeypatch):
    rules = engine.Rules(variant="perevodnoy", players=2)
    users = [make_user("burst0"), make_user("burst1")]
    table = tables.do_create_table(rules=rules, host=users[0], seat_users=users, start=True)
    game = latest_game(table)
    position = positions.position_of(game)
    opener = position.attacker
    action = str(position.legal_actions(opener)[-1])
    results = run_at_once(
        {i: (lambda: play.do_player_move(game_id=game.pk, user=users[opener], action=action)) for i in range(8)},
        hold_first=False,
        monkeypatch=monkeypatch,
    )
    outcomes = [r[0] for r in results.values()]
    assert outcomes.count("applied") == 1 and outcomes.count("refused") == 7, results
    assert fresh(game).move_count == 1


def test_concurrent_expiry_acts_once(monkeypatch):
    rules = engine.Rules(variant="podkidnoy", players=2)
    users = [make_user("sleepy0"), make_user("sleepy1")]
    table = tables.do_create_table(rules=rules, host=users[0], seat_users=users, turn_seconds=15, start=True)
    game = latest_game(table)
    now = game.deadline
    results = run_at_once(
        {i: (lambda: play.do_advance_game(game_id=game.pk, now=now)) for i in range(4)},
        hold_first=True,
        monkeypatch=monkeypatch,
    )
    assert sorted(r[1] for r in results.values()) == [0, 0, 0, 1], results
    assert [m[2] for m in moves(game)] == [Move.Source.TIMEOUT]
    assert Game.objects.get(pk=game.pk).deadline > now
