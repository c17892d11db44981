"""An arena's exports: an arena is no rounds but each player's games one after another, so its
standings sheet has a column group per game of the player (his first, second, ... in the order
he played them), its games sheet lists each player's games in time order, and its TRF-like text
says it is an arena (how long, how many games the busiest player played)."""

from __future__ import annotations

import csv
import io

import pytest

from tests.tournaments.helpers import make_users
from tests.tournaments.test_arena import WAIT, entrant, finish, make_arena, open_tables
from tournaments import exports, services
from tournaments.models import Entrant, Result

pytestmark = pytest.mark.django_db


def _rows(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8-sig"))))


@pytest.fixture
def arena(director):
    """Four players at tables of two, over two passes: each plays two games."""
    users = make_users(4, prefix="ar")
    event, now = make_arena(users, table_size=2)
    for _ in range(2):
        for rt in open_tables(event):
            finish(event, rt, {pk: place for place, pk in enumerate(rt.entrants, 1)}, director, now)
        now += WAIT
        services.do_arena_seating_pass(tournament_id=event.pk, now=now)
    return event, users


def test_an_arena_standings_export_has_a_column_group_per_game_of_each_player(arena):
    event, users = arena
    header, *rows = _rows(exports.export(event, "standings", "csv")[0])
    assert not any(h.startswith("тур ") for h in header), "an arena has no rounds"
    assert header[-8:] == [
        "партия 1: стол",
        "партия 1: соперники",
        "партия 1: место",
        "партия 1: очки",
        "партия 2: стол",
        "партия 2: соперники",
        "партия 2: место",
        "партия 2: очки",
    ]
    start = header.index("стартовый номер")
    for user in users:
        me = entrant(event, user)
        mine = Result.objects.filter(entrant=me).order_by("round_table__number")
        assert mine.count() == 2
        row = next(r for r in rows if r[header.index("имя")] == user.username)
        for n, result in enumerate(mine, 1):
            assert row[header.index(f"партия {n}: стол")] == str(result.round_table.number)
            assert row[header.index(f"партия {n}: место")] == str(result.place)
            assert float(row[header.index(f"партия {n}: очки")]) == result.points
            (mate,) = [pk for pk in result.round_table.entrants if pk != me.pk]
            mate_row = next(r for r in rows if r[header.index("имя")] == str(mate_name(mate)))
            assert row[header.index(f"партия {n}: соперники")] == mate_row[start]


def mate_name(entrant_id: int) -> str:
    return Entrant.objects.get(pk=entrant_id).user.username


def test_an_arena_games_export_lists_each_players_games_in_time_order(arena):
    event, users = arena
    header, *rows = _rows(exports.export(event, "games", "csv")[0])
    assert header[:3] == ["участник", "партия участника", "стол"]
    by_player: dict[str, list[list[str]]] = {}
    for row in rows:
        by_player.setdefault(row[0], []).append(row)
    assert list(by_player) == list(dict.fromkeys(row[0] for row in rows)), "each player's games together"
    finished = header.index("окончена (Europe/Moscow)")
    for games in by_player.values():
        assert [g[1] for g in games] == ["1", "2"]
        assert [g[finished] for g in games] == sorted(g[finished] for g in games)
        assert [int(g[2]) for g in games] == sorted(int(g[2]) for g in games)


def test_an_arena_trf_says_it_is_an_arena_and_counts_games_not_rounds(arena):
    event, _users = arena
    lines = exports.export(event, "standings", "trf")[0].decode().splitlines()
    assert "092 арена" in lines
    assert "XXR 2" in lines, "the busiest player's games, not one round"
    assert "XXA 5" in lines, "an arena of 5 minutes, its blocks each player's games in order"
