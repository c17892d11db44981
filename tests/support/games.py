"""People and games made through the services, as the site makes them."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from games import bots, engine, positions
from games.models import Game, GameSeat, Move
from games.services import play, tables

MAX_MOVES = 3000


def make_user(name: str, password: str | None = None):
    """A user; without a password (no slow hashing) unless one is needed to log in."""
    return get_user_model().objects.create_user(username=name, password=password)


def latest_game(table) -> Game:
    return Game.objects.filter(table=table).order_by("-number").first()


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def seat_map(game: Game) -> dict[int, GameSeat]:
    return {s.number: s for s in GameSeat.objects.filter(game=game)}


def moves(game: Game) -> list[tuple[int, str, str]]:
    return list(Move.objects.filter(game=game).order_by("number").values_list("seat", "action", "source"))


def two_player_rules(**kw) -> engine.Rules:
    return engine.Rules(**{"variant": "podkidnoy", "players": 2, **kw})


def new_table(rules, users, bot_seats=None, turn_seconds=None, start=True):
    """A table where `users` sit (the first hosts), bots at `bot_seats`, dealt unless `start=False`."""
    return tables.do_create_table(
        rules=rules,
        host=users[0] if users else None,
        seat_users=users,
        bot_seats=bot_seats,
        turn_seconds=turn_seconds,
        start=start,
    )


def open_game(users, rules: engine.Rules | None = None) -> Game:
    """A started table where `users` (one per seat) sit; returns the game."""
    rules = rules or engine.Rules(players=len(users))
    return latest_game(new_table(rules, list(users)))


def human_choice(position: engine.Game, seat: int, move_count: int) -> str:
    """What a (repeatable) person at `seat` would play: a heuristic bot's choice."""
    return bots.get_bot("heuristic", seed=move_count).choose(position.view(seat))


def play_humans(game: Game, users: dict[int, object], max_moves: int | None = None, check_cache: bool = False) -> Game:
    """Make the awaited human seats move through do_player_move (bots through advance)."""
    made = 0
    game = fresh(game)
    while not game.is_over and (max_moves is None or made < max_moves):
        position = positions.position_of(game)
        to_move = position.to_move()
        human = [s for s in to_move if s in users]
        if human:
            seat = human[0]
            play.do_player_move(
                game_id=game.pk,
                user=users[seat],
                action=human_choice(position, seat, game.move_count),
                expected_seat=seat,
            )
        else:
            assert game.bot_due_at is not None, "nobody to move and no bot scheduled"
            assert play.do_advance_game(game_id=game.pk, now=game.bot_due_at) == 1
        made += 1
        assert made < MAX_MOVES, "the game does not end"
        game = fresh(game)
        if check_cache:
            assert positions.replay(game) == engine.Game.from_json(game.state_json)
    return game


def play_to_end(game: Game, users, moves: int | None = None) -> Game:
    """Every seat is a person (`users[seat]`) who plays what a heuristic bot would,
    through do_player_move, until the game is over (or `moves` moves were made)."""
    return play_humans(game, dict(enumerate(users)), max_moves=moves)
