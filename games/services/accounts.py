"""Creating accounts: people who sign up, and guests who only try a game."""

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction

from games import engine
from games.models import Profile, Table

from .tables import do_create_table

GUEST_BOT_LEVEL = "heuristic"


def do_sign_up(form):
    """Save a valid UserCreationForm: the new user and his profile."""
    with transaction.atomic():
        user = form.save()
        Profile.objects.get_or_create(user=user)
    return user


def _guest_username(prefix: str) -> str:
    User = get_user_model()
    digits = 4
    while True:
        for _ in range(20):
            name = f"{prefix}-{secrets.randbelow(10**digits):0{digits}d}"
            if not User.objects.filter(username=name).exists():
                return name
        digits += 1  # a crowded club: longer numbers


def do_play_as_guest(*, user=None, prefix: str = "Guest", rules: engine.Rules | None = None) -> tuple:
    """A new guest (no password, named `prefix`-1234) at a new private table
    against heuristic bots (one per seat beyond his); the game is dealt at once.
    A signed-in `user` (a guest coming back for more) plays instead of a new
    guest. Returns (user, table)."""
    User = get_user_model()
    rules = rules or engine.Rules(players=2)
    with transaction.atomic():
        if user is None or not user.is_authenticated:
            user = User(username=_guest_username(prefix))
            user.set_unusable_password()
            user.save()
            Profile.objects.create(user=user, is_guest=True)
        table: Table = do_create_table(
            rules=rules,
            host=user,
            is_private=True,
            bot_level=GUEST_BOT_LEVEL,
            bot_seats=dict.fromkeys(range(1, rules.players), GUEST_BOT_LEVEL),
            start=True,
        )
    return user, table
