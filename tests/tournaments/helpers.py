"""Helpers for the event tests: people, events, and games played to the end.

Entrants are users; their games are played through the play service
(`do_player_move`), each move chosen for the seat by a heuristic bot, so an
event runs exactly as it would with people at the tables, only faster.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import bots, positions
from games.models import Game
from games.services import play
from tournaments import tasks
from tournaments.models import Round, Tournament


def make_users(count: int, prefix: str = "p") -> list:
    User = get_user_model()
    return [User.objects.create_user(username=f"{prefix}{i:02d}") for i in range(1, count + 1)]


def make_event(**kw) -> Tournament:
    now = timezone.now()
    fields = {
        "name": "Вечерний швейцарец",
        "variant": "podkidnoy",
        "rules": {},
        "table_size": 4,
        "format": Tournament.Format.SWISS,
        "rounds": 4,
        "games_per_round": 1,
        "registration_opens": now - timedelta(hours=1),
        "starts_at": now + timedelta(hours=1),
        "pause_between_rounds": timedelta(0),
        "turn_seconds": 30,
        **kw,
    }
    return Tournament.objects.create(**fields)


# How long `play_game` waits for a worker to move the bot-controlled seats a game awaits
# (autopilot after timeouts, a house bot: a bot's pause, on a loaded machine).
BOTS_MOVE_WITHIN = 30


def player_move(game_id: int) -> bool:
    """One move of the first awaited seat a person holds, chosen as a heuristic bot would,
    through the play service. The position is read and the move made in one transaction
    with the game row locked (the lock the play service takes), so a worker's move (an
    expired turn timer, an autopilot or bot move, a forfeit) comes before the read or
    after the move, never between: the move always answers the position it was chosen in.
    Returns whether a move was made (not when the game is over or awaits only
    bot-controlled seats)."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if game.is_over:
            return False
        seats = {s.number: s for s in game.seats.select_related("user")}
        position = positions.position_of(game)
        awaited = [n for n in position.to_move() if not seats[n].is_bot_controlled]
        if not awaited:
            return False
        seat = awaited[0]
        action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
        play.do_player_move(game_id=game.pk, user=seats[seat].user, action=action, expected_seat=seat)
        return True


def play_game(game: Game) -> Game:
    """Every awaited seat of a person moves (`player_move`) until the game is over; seats
    on autopilot or of a house bot are a worker's to move (BOTS_MOVE_WITHIN)."""
    bots_awaited_since = None
    while not (game := Game.objects.get(pk=game.pk)).is_over:
        if player_move(game.pk):
            bots_awaited_since = None
            continue
        bots_awaited_since = bots_awaited_since or time.monotonic()
        waited = time.monotonic() - bots_awaited_since
        assert waited < BOTS_MOVE_WITHIN, f"game {game.pk}: nobody moved its bot-controlled seats in {waited:.0f} s"
        time.sleep(0.05)
    return game


def latest_game(table_id: int) -> Game | None:
    return Game.objects.filter(table_id=table_id).order_by("-number").first()


def play_round(event: Tournament, number: int, signal: bool = True) -> Round:
    """Play every game of round `number`; after each, the finished-game task runs
    (what the game_finished receiver enqueues) unless `signal` is False."""
    round_ = Round.objects.get(tournament=event, number=number)
    assert round_.status == Round.Status.PLAYING
    while True:
        open_tables = list(round_.tables.filter(done=False))
        if not open_tables:
            break
        for rt in open_tables:
            game = latest_game(rt.table_id)
            if game.is_over:
                continue
            game = play_game(game)
            if signal:
                tasks.record_game(game.pk)
        if not signal:
            tasks.sweep_events()
        round_.refresh_from_db()
    round_.refresh_from_db()
    return round_


def play_game_lost_by(game: Game, loser) -> Game:
    """`loser` resigns at the deal (his seat counts as last place and the autopilot plays it
    on, through the game's own advance); the others move as in `play_game`."""
    play.do_resign(game_id=game.pk, user=loser)
    game = Game.objects.get(pk=game.pk)
    users = {s.number: s.user for s in game.seats.select_related("user")}
    while not game.is_over:
        position = positions.position_of(game)
        seat = position.to_move()[0]
        if users[seat] == loser:
            play.do_advance_game(game_id=game.pk, now=timezone.now() + timedelta(hours=1))
        else:
            action = bots.get_bot("heuristic", seed=game.move_count).choose(position.view(seat))
            play.do_player_move(game_id=game.pk, user=users[seat], action=action, expected_seat=seat)
        game = Game.objects.get(pk=game.pk)
    return game
