"""Finished games built by hand, as the play service leaves them (R19-R21)."""

from __future__ import annotations

import itertools
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from games.models import Game, GameSeat, Table

_numbers = itertools.count(1)
START = timezone.now() - timedelta(days=5)


def people(*names):
    User = get_user_model()
    return [User.objects.create_user(username=name, password="x") for name in names]


def finished_game(
    seats,
    *,
    variant="podkidnoy",
    rated=True,
    partners=False,
    finished_at=None,
    minutes=None,
    abandoned=(),
):
    """`seats` is a list of (user or bot level string, place) in seat order.

    Without partners each seat is its own team; with partners seats 0, 2 are
    team 0 and 1, 3 team 1 (R2). `abandoned` seats count as last place.
    """
    number = next(_numbers)
    n = len(seats)
    table = Table.objects.create(rules={"players": n}, variant=variant, seats_count=n, rated=rated, status="finished")
    if finished_at is None:
        finished_at = START + timedelta(minutes=minutes if minutes is not None else number)
    game = Game.objects.create(
        table=table,
        number=1,
        rules={"players": n, "partners": partners},
        variant=variant,
        rated=rated,
        seed="s",
        seed_hash="h",
        status="finished",
        state_json="",
        result={},
        finished_at=finished_at,
    )
    for number_, (who, place) in enumerate(seats):
        is_bot = isinstance(who, str)
        GameSeat.objects.create(
            game=game,
            number=number_,
            user=None if is_bot else who,
            bot_level=who if is_bot else "",
            team=number_ % 2 if partners else number_,
            place=place,
            counted_place=n if number_ in abandoned else place,
            abandoned=number_ in abandoned,
        )
    return game
