"""Playing whole games through the services, as the site does."""

from __future__ import annotations

from games import bots, engine
from games.models import Game
from games.services import play, positions, tables

MAX_MOVES = 3000


def open_game(users, rules: engine.Rules | None = None):
    """A started table where `users` (one per seat) sit; returns the game."""
    rules = rules or engine.Rules(players=len(users))
    table = tables.do_create_table(rules=rules, host=users[0], seat_users=list(users), start=True)
    return table.games.get()


def play_to_end(game: Game, users, moves: int | None = None) -> Game:
    """Each seat to move plays what a heuristic bot would choose, through
    do_player_move, until the game is over (or `moves` moves were made)."""
    made = 0
    while True:
        game.refresh_from_db()
        if game.is_over or (moves is not None and made >= moves):
            return game
        position = positions.position_of(game)
        seat = position.to_move()[0]
        action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
        play.do_player_move(game_id=game.pk, user=users[seat], action=action)
        made += 1
        assert made < MAX_MOVES, "the game does not end"
