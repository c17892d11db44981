"""Rebuilding engine positions from the database (the move log is the truth)."""

import hashlib

from games import engine
from games.models import Game


def seed_hash(seed: str) -> str:
    """The commitment shown at the start of a game: SHA-256 of the seed text."""
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def deal(rules: engine.Rules, seed: str, dealer: int) -> engine.Game:
    return engine.Game.new(rules, seed=seed, dealer=dealer)


def replay(game: Game, upto: int | None = None) -> engine.Game:
    """The position after the first `upto` moves (all by default), from seed and log."""
    position = deal(engine.Rules.from_dict(game.rules), game.seed, game.dealer)
    moves = game.moves.order_by("number")
    if upto is not None:
        moves = moves.filter(number__lt=upto)
    for move in moves.values_list("seat", "action"):
        position.act(*move)
    return position


def position_of(game: Game) -> engine.Game:
    """The current position: the cached one when it matches the log, else a replay."""
    if game.state_json:
        return engine.Game.from_json(game.state_json)
    return replay(game)
