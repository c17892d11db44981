"""Creating accounts: people who sign up, and guests who only try a game."""

import re
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language, gettext, override
from django.utils.translation import gettext_lazy as _

from games import engine, wording
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


# ------------------------------------------------------------------ e-mail addresses
#
# `User.email` is only ever a confirmed address (or one the admin set): notices and the
# password reset send there and nowhere else. A new address waits in
# `Profile.pending_email` until its link is followed; the old one keeps working until then.

CONFIRM_SALT = "games.accounts.confirm-email"
CONFIRM_DAYS = 3  # how long a confirmation link works


class EmailRefused(Refusal):
    """A confirmation link that is forged, expired, or for an address no longer waiting."""


def confirmation_token(user_id: int, address: str) -> str:
    return signing.dumps({"u": user_id, "e": address}, salt=CONFIRM_SALT, compress=True)


def read_confirmation_token(token: str) -> tuple[int, str] | None:
    """(user id, address) of a link made in the last CONFIRM_DAYS, or None."""
    try:
        data = signing.loads(token, salt=CONFIRM_SALT, max_age=CONFIRM_DAYS * 24 * 3600)
    except signing.BadSignature:  # (SignatureExpired is one)
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or not isinstance(data.get("e"), str):
        return None
    return data["u"], data["e"]


def _normalized(address: str) -> str:
    return get_user_model().objects.normalize_email((address or "").strip())


def email_needs_link(user, address: str) -> bool:
    """Whether giving `address` would send a confirmation link (a new address, not the confirmed one)."""
    address = _normalized(address)
    return bool(address) and address.casefold() != (user.email or "").casefold()


def do_change_email(*, user, address: str) -> bool:
    """The player gives `address` (sign-up or his account page). A new one waits for its
    link (sent, in the language he reads the site in, once the change commits); his
    confirmed one, if any, stays until then. The confirmed one again: nothing waits. Empty:
    he drops both and no mail goes to him. Returns whether a confirmation mail is sent."""
    address = _normalized(address)
    with transaction.atomic():
        locked = get_user_model().objects.select_for_update().get(pk=user.pk)
        if not address or address.casefold() == (locked.email or "").casefold():
            if not address and locked.email:
                locked.email = ""
                locked.save(update_fields=["email"])
            Profile.objects.filter(user=locked).update(pending_email="")
            user.email = locked.email
            return False
        Profile.objects.filter(user=locked).update(pending_email=address)
        language = get_language() or settings.LANGUAGE_CODE
        transaction.on_commit(lambda: _send_confirmation(locked, address, language))
    return True


def _send_confirmation(user, address: str, language: str) -> None:
    with override(language):
        link = settings.SITE_URL.rstrip("/") + reverse(
            "games:confirm-email", kwargs={"token": confirmation_token(user.pk, address)}
        )
        context = {"player": user, "address": address, "link": link, "days": CONFIRM_DAYS}
        message = EmailMultiAlternatives(
            subject=gettext("Confirm your address for Durak"),
            body=render_to_string("games/accounts/email/confirm.txt", context),
            from_email=settings.DEFAULT_FROM_EMAIL,
            to=[address],
        )
        message.attach_alternative(render_to_string("games/accounts/email/confirm.html", context), "text/html")
        message.send(fail_silently=False)


def do_confirm_email(*, token: str):
    """Follow a confirmation link: its address becomes the player's (notices and the
    password reset go there from now on). Raises EmailRefused, changing nothing, for a
    forged or expired link or one for an address he has since replaced. Returns the user."""
    found = read_confirmation_token(token)
    if found is None:
        raise EmailRefused(_("This confirmation link is not valid or has expired: give your address again."))
    user_id, address = found
    with transaction.atomic():
        user = get_user_model().objects.select_for_update().filter(pk=user_id).first()
        profile = Profile.objects.filter(user_id=user_id).first()
        if user is None or profile is None:
            raise EmailRefused(_("This confirmation link is not valid or has expired: give your address again."))
        if (user.email or "").casefold() == address.casefold():
            return user  # followed twice: already confirmed
        if profile.pending_email.casefold() != address.casefold():
            raise EmailRefused(_("This link is for an address that no longer waits for confirmation."))
        user.email = address
        user.save(update_fields=["email"])
        Profile.objects.filter(pk=profile.pk).update(pending_email="")
    return user


def do_set_address(*, user, address: str) -> str:
    """How the player asks to be spoken of (games.wording); anything else: no preference."""
    address = wording.address_of(address)
    Profile.objects.filter(user=user).update(address=address)
    return address


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
        if form.cleaned_data.get("email"):
            do_change_email(user=user, address=form.cleaned_data["email"])
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
