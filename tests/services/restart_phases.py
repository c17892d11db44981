"""The two lives of a server process, for tests/services/test_restart.py.

    python -m tests.services.restart_phases start <seed> <moves>
    python -m tests.services.restart_phases resume <game id>

Run in fresh processes on one SQLite file (SQLITE_PATH), so the second one
starts with nothing in memory: no parsed positions, no connections. Each
prints one JSON line with what it saw.
"""

from __future__ import annotations

import json
import sys

import django

PLAYERS = ("r1", "r2", "r3")


def start(seed: str, moves: int) -> dict:
    from games import engine, positions
    from games.services import tables
    from tests.support.games import latest_game, make_user, play_humans

    tables.new_seed = lambda: seed
    users = [make_user(name) for name in PLAYERS]
    table = tables.do_create_table(
        rules=engine.Rules(variant="perevodnoy", players=3), host=users[0], seat_users=users, start=True
    )
    game = play_humans(latest_game(table), dict(enumerate(users)), max_moves=moves)
    return {"game_id": game.pk, "move_count": game.move_count, "cached": positions.cached_count()}


def resume(game_id: int) -> dict:
    from django.contrib.auth import get_user_model

    from games import positions
    from games.models import Game, GameSeat
    from tests.support.games import moves, play_humans

    cached_at_start = positions.cached_count()
    game = Game.objects.get(pk=game_id)
    rebuilt = positions.replay(game) == positions.position_of(game)
    move_count_at_start = game.move_count
    users = {number: get_user_model().objects.get(username=name) for number, name in enumerate(PLAYERS)}
    game = play_humans(game, users, check_cache=True)
    return {
        "cached_at_start": cached_at_start,
        "move_count_at_start": move_count_at_start,
        "state_equals_replay": rebuilt,
        "over": game.is_over,
        "moves": [list(m[:2]) for m in moves(game)],
        "result": game.result,
        "places": list(GameSeat.objects.filter(game=game).values_list("number", "place", "is_loser")),
    }


def main(argv: list[str]) -> None:
    django.setup()
    phase = argv[0]
    if phase == "start":
        print(json.dumps(start(argv[1], int(argv[2]))))
    elif phase == "resume":
        print(json.dumps(resume(int(argv[1]))))
    else:
        raise SystemExit(f"unknown phase {phase!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
