"""Creating accounts: people who sign up, and guests who only try a game."""

import re
import secrets

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _

from games import engine
from games.errors import Refusal
from games.models import Profile, Table
from games.names import NAME_KEY_LENGTH, name_key

from .play import do_finish_now, do_resign
from .tables import do_create_table, do_join_table, do_leave_table

GUEST_BOT_LEVEL = "heuristic"

# Names nobody may sign up with: they would pass for the site's staff, its bots
# ("Bot 2" at a table) or a guest. Compared after `name_key` with separators and
# trailing digits removed, so "Admin", "ad-min", "admin_2" and "ＡＤＭＩＮ" are all "admin".
STAFF_NAMES = frozenset(
    {
        "admin", "admins", "administrator", "administrators", "moderator", "moderators", "mod", "staff",
        "support", "helpdesk", "root", "system", "sysadmin", "superuser", "owner", "official", "security",
        "server", "durak", "guest", "anonymous",
        "админ", "админы", "администратор", "администрация", "модератор", "модераторы", "поддержка",
        "система", "сервер", "дурак", "гость", "аноним",
    }
)  # fmt: skip
BOT_NAMES = frozenset({"bot", "bots", "бот", "боты"})
GUEST_NAME_RE = re.compile(r"^(?:guest|гость)\d*$")
# A name that starts like a bot's ("Bot: Medium", "Бот: Сильный") is a bot's too.
BOT_NAME_RE = re.compile(r"^(?:bots?|боты?):")
_SEPARATORS = re.compile(r"[\s_.@+\-]+")


def _stored_key(key: str, suffix: str = "") -> str:
    return key[: NAME_KEY_LENGTH - len(suffix)] + suffix


def _bare(name: str) -> str:
    """The name without separators and trailing digits: "Ad-min_2" is "admin"."""
    bare = _SEPARATORS.sub("", name_key(name))
    return bare.rstrip("0123456789") or bare


NAME_TAKEN = _("A player with this name already exists.")


def username_refusal(name: str):
    """Why `name` cannot be a new player's name (a translated text), or None.
    One indexed query at most, however many players the club has."""
    key = name_key(name)
    flat = _SEPARATORS.sub("", key)
    if GUEST_NAME_RE.match(flat):
        return _("Names like “Guest-1234” are kept for guests: choose another name.")
    bare = _bare(name)
    if bare in BOT_NAMES or BOT_NAME_RE.match(flat):
        return _("Names like “Bot 2” are kept for the site’s bots: choose another name.")
    if bare in STAFF_NAMES:
        return _("This name is kept for the site’s staff: choose another name.")
    if Profile.objects.filter(name_key=_stored_key(key)).exists():
        return NAME_TAKEN
    return None


class NameTaken(Refusal):
    """Someone took a look-alike of the name between the form's check and the save."""


def keep_name_key(sender, instance, created, raw=False, update_fields=None, **kwargs):
    """post_save of the user model (connected in GamesConfig.ready): every user, however
    made (sign-up, guest, admin, code), has a profile holding his name's key."""
    if raw or (update_fields is not None and "username" not in update_fields):
        return  # a fixture, or a save that cannot rename (last_login at each login)
    key = _stored_key(name_key(instance.get_username()))
    if not created and Profile.objects.filter(user=instance, name_key=key).exists():
        return
    try:
        with transaction.atomic():  # a savepoint: a look-alike must not break the caller's transaction
            Profile.objects.update_or_create(user=instance, defaults={"name_key": key})
    except IntegrityError:
        # A look-alike made outside sign-up (which refuses it, see do_sign_up) is let be.
        Profile.objects.update_or_create(user=instance, defaults={"name_key": _stored_key(key, f"#{instance.pk}")})


def do_sign_up(form, *, guest=None):
    """Save a valid UserCreationForm: the new user and his profile. Raises NameTaken
    (and saves nothing) when a look-alike signed up since the form's check.
    A `guest` who signs up becomes the account (his name and password set, the guest
    flag cleared) rather than a new user: his games, seats and ratings stay his."""
    with transaction.atomic():
        if guest is not None and guest.is_authenticated and _is_guest(guest):
            user = get_user_model().objects.select_for_update().get(pk=guest.pk)
            user.username = form.cleaned_data["username"]
            user.set_password(form.cleaned_data["password1"])
            user.save()  # keep_name_key moves the profile to the new name
            Profile.objects.filter(user=user).update(is_guest=False)
            user.profile.refresh_from_db()
        else:
            user = form.save()  # keep_name_key makes the profile
        if user.profile.name_key != _stored_key(name_key(user.get_username())):
            raise NameTaken(NAME_TAKEN)  # leaving the atomic block undoes the user too
    return user


def _is_guest(user) -> bool:
    profile = Profile.objects.filter(user=user).only("is_guest").first()
    return bool(profile and profile.is_guest)


def _guest_username(prefix: str) -> str:
    User = get_user_model()
    digits = 4
    while True:
        for _attempt in range(20):
            name = f"{prefix}-{secrets.randbelow(10**digits):0{digits}d}"
            if not User.objects.filter(username=name).exists():
                return name
        digits += 1  # a crowded club: longer numbers


def do_create_guest(*, prefix: str = "Guest"):
    """A new guest: no password, named `prefix`-1234 (the "play now" queue seats guests too)."""
    User = get_user_model()
    with transaction.atomic():
        user = User(username=_guest_username(prefix))
        user.set_unusable_password()
        user.save()  # keep_name_key makes the profile
        user.profile.is_guest = True
        user.profile.save(update_fields=["is_guest"])
    return user


def do_join_as_guest(*, table_id: int, invite_token: str | None, prefix: str = "Guest"):
    """A friend without an account at a table he was invited to: a new guest sitting
    in its first free seat. A refusal (a full table, a rated one, a wrong token) leaves
    no guest behind. Returns the guest."""
    with transaction.atomic():
        user = do_create_guest(prefix=prefix)
        do_join_table(table_id=table_id, user=user, invite_token=invite_token)
    return user


def do_play_as_guest(
    *, user=None, prefix: str = "Guest", rules: engine.Rules | None = None, bot_level: str = GUEST_BOT_LEVEL
) -> tuple:
    """A new guest (no password, named `prefix`-1234) at a new private table
    against bots of `bot_level` (one per seat beyond his); the game is dealt at once.
    A signed-in `user` (a guest coming back for more) plays instead of a new
    guest; his previous quick games end first (`end_quick_games`). Returns (user, table)."""
    rules = rules or engine.Rules(players=2)
    with transaction.atomic():
        if user is None or not user.is_authenticated:
            user = do_create_guest(prefix=prefix)
        else:
            end_quick_games(user)
        table: Table = do_create_table(
            rules=rules,
            host=user,
            is_private=True,
            bot_level=bot_level,
            bot_seats=dict.fromkeys(range(1, rules.players), bot_level),
            start=True,
        )
    return user, table


def end_quick_games(user) -> None:
    """Before a new quick game: the player's earlier tables against bots only are left
    properly: a running game is resigned (the bots finish it), a table between games is left."""
    quick = Table.objects.filter(host=user, is_private=True, seats__user=user).exclude(status=Table.Status.CLOSED)
    for table in quick.distinct():
        others = table.seats.exclude(user=user)
        if others.filter(user__isnull=False).exists() or others.filter(user__isnull=True, bot_level="").exists():
            continue  # a private table with (or waiting for) friends is not a quick game
        game = table.games.filter(status="playing").order_by("-number").first()
        if game is not None:
            do_resign(game_id=game.pk, user=user)
            do_finish_now(game_id=game.pk, user=user)  # only bots are left: the game ends now
        else:
            do_leave_table(table_id=table.pk, user=user)
