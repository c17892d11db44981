"""Opening tables, taking seats and dealing games."""

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from games import bots, engine, limits
from games.errors import TableRefused
from games.models import Game, GameSeat, Table, TableSeat
from games.positions import deal, seed_hash

from . import store
from .play import schedule_new_game

TURN_TIMER_CHOICES = (None, 15, 30, 60)  # T7
# A public table always has a turn timer: a stranger who walks away would otherwise freeze
# the game for everyone (issue 17). Among friends at a private table, "no timer" stays a choice.
DEFAULT_PUBLIC_TURN_SECONDS = 30


def table_turn_seconds(turn_seconds: int | None, *, is_private: bool) -> int | None:
    """The turn timer a table a person opens gets when he asks for `turn_seconds`."""
    if turn_seconds is None and not is_private:
        return DEFAULT_PUBLIC_TURN_SECONDS
    return turn_seconds


def is_guest(user) -> bool:
    profile = getattr(user, "profile", None)
    return bool(profile and profile.is_guest)


def do_create_table(
    *,
    rules: engine.Rules,
    host=None,
    turn_seconds: int | None = None,
    is_private: bool = False,
    rated: bool = False,
    bot_level: str = "",
    seat_users=None,
    bot_seats: dict | None = None,
    start: bool = False,
    rematch: bool = True,
    managed_by_event: bool = False,
    arrival_grace=None,
) -> Table:
    """Open a table. The host sits at seat 0; code (a tournament round) may seat
    given users (`seat_users`, one per seat or None) and bots, and start at once.
    With `rematch=False` (a tournament round's table) players never deal there:
    the code that opened it deals its games (`do_deal_next_game`).
    With `managed_by_event=True` (a tournament round's table) its seats are fixed:
    nobody joins, leaves, or seats a bot there, at any moment. `arrival_grace` (a timedelta:
    a tournament's no-show grace) keeps the turn timer off a player who has not come yet for
    that long after each deal (games.services.clock.wait_for_arrival)."""
    if turn_seconds not in TURN_TIMER_CHOICES:
        raise TableRefused(_("The turn timer is none, 15, 30 or 60 seconds."))
    if host is not None and seat_users is None and not managed_by_event:
        # A person opens it for whoever comes (code that seats its own players sets its own timer).
        turn_seconds = table_turn_seconds(turn_seconds, is_private=is_private)
    if bot_level and not _known_level(bot_level):
        raise TableRefused(_("There is no bot level “%(level)s”."), level=bot_level)
    for level in (bot_seats or {}).values():
        if not _known_level(level):
            raise TableRefused(_("There is no bot level “%(level)s”."), level=level)
    if rated and is_private:
        # docs/ratings.md, "Private tables": a private table is never rated.
        raise TableRefused(_("Private tables are never rated: open a public table for a rated game."))
    if rated and (bot_level or bot_seats):
        raise TableRefused(_("Rated tables are for people only: no bots."))
    if rated and host is not None and is_guest(host):
        raise TableRefused(_("Rated play needs an account: sign up first."))
    users = list(seat_users or [])
    if len(users) > rules.players:
        raise TableRefused(
            ngettext_lazy(
                "The table has %(seats)s seat, not %(users)s.", "The table has %(seats)s seats, not %(users)s.", "seats"
            ),
            seats=rules.players,
            users=len(users),
        )
    people = [u.pk for u in users if u is not None]
    if len(people) != len(set(people)):
        raise TableRefused(_("A player takes one seat only."))
    if rated and any(is_guest(u) for u in users if u is not None):
        raise TableRefused(_("Rated play needs an account: sign up first."))
    with transaction.atomic():
        if host is not None and not start:
            _check_waiting_tables(host)
        table = Table.objects.create(
            host=host,
            rules=rules.to_dict(),
            variant=rules.variant,
            seats_count=rules.players,
            turn_seconds=turn_seconds,
            is_private=is_private,
            rated=rated,
            bot_level=bot_level,
            rematch=rematch,
            managed_by_event=managed_by_event,
            arrival_grace=arrival_grace,
        )
        if host is not None and not users:
            users = [host]
        for number in range(rules.players):
            user = users[number] if number < len(users) else None
            level = (bot_seats or {}).get(number, "") if user is None else ""
            # Whoever is seated at the opening agreed to this table's first deal.
            TableSeat.objects.create(table=table, number=number, user=user, bot_level=level, ready=user is not None)
        if start:
            _fill_empty_seats(table)
            _deal_new_game(table)
        store.notify_table(table)
    return table


def _check_waiting_tables(host) -> None:
    """One person holds at most MAX_WAITING_TABLES tables waiting for players (the lobby is everyone's)."""
    # The host's row is the lock that makes the count exact across processes.
    get_user_model().objects.select_for_update().filter(pk=host.pk).first()
    limit = limits.setting("MAX_WAITING_TABLES")
    if Table.objects.filter(host=host, status=Table.Status.WAITING).count() >= limit:
        raise TableRefused(
            ngettext_lazy(
                "You already have %(count)s table waiting for players: start or leave it before opening another.",
                "You already have %(count)s tables waiting for players: start or leave one before opening another.",
                "count",
            ),
            count=limit,
        )


def do_join_table(*, table_id: int, user, seat_number: int | None = None, invite_token: str | None = None) -> TableSeat:
    """Take a free seat. A private table needs its invite token (from the invite
    link), except for its host: table ids are sequential, the token is not."""
    with transaction.atomic():
        table = store.locked_table(table_id)
        _refuse_event_table(table)
        if table.is_private and not may_join_private(table, user, invite_token):
            raise TableRefused(_("This table is private: join it through its invite link."))
        if table.status != Table.Status.WAITING:
            raise TableRefused(_("The game at this table has already started."))
        if table.rated and is_guest(user):
            raise TableRefused(_("Rated play needs an account: sign up first."))
        if table.seats.filter(user=user).exists():
            raise TableRefused(_("You already sit at this table."))
        free = table.seats.filter(user__isnull=True, bot_level="")
        if seat_number is not None:
            free = free.filter(number=seat_number)
        seat = free.order_by("number").first()
        if seat is None:
            raise TableRefused(_("That seat is taken.") if seat_number is not None else _("The table is full."))
        seat.user = user
        seat.ready = True  # sitting down at a waiting table is agreeing to its next deal
        seat.save(update_fields=["user", "ready"])
        if not table.seats.filter(user__isnull=True, bot_level="").exists() and not _not_ready(table):
            _deal_new_game(table)  # a full table starts itself once everyone seated agreed
        store.notify_table(table)
        return seat


def may_join_private(table: Table, user, invite_token: str | None) -> bool:
    if user is not None and table.host_id == user.pk:
        return True
    if not isinstance(invite_token, str) or not invite_token:
        return False
    return secrets.compare_digest(invite_token.encode(), table.invite_token.encode())


def do_leave_table(*, table_id: int, user) -> None:
    with transaction.atomic():
        table = store.locked_table(table_id)
        seat = table.seats.filter(user=user).first()
        if seat is None:
            raise TableRefused(_("You do not sit at this table."))
        _refuse_event_table(table)
        if table.status == Table.Status.PLAYING:
            raise TableRefused(_("The game is on: resign to leave it."))
        seat.user = None
        seat.ready = False
        seat.save(update_fields=["user", "ready"])
        if table.host_id == user.pk:
            heir = table.seats.filter(user__isnull=False).first()
            table.host = heir.user if heir else None
        if not table.seats.filter(user__isnull=False).exists():
            table.status = Table.Status.CLOSED
        elif table.status == Table.Status.FINISHED:
            table.status = Table.Status.WAITING
        table.save(update_fields=["host", "status", "updated_at"])
        store.notify_table(table)


def do_set_bot(*, table_id: int, user, seat_number: int, level: str) -> None:
    """The host puts a bot of `level` in an empty seat, or ('' level) takes it out."""
    with transaction.atomic():
        table = store.locked_table(table_id)
        _refuse_event_table(table)
        if table.host_id != user.pk:
            raise TableRefused(_("Only the host seats bots."))
        if table.status == Table.Status.PLAYING:
            raise TableRefused(_("The game is on."))
        if table.rated and level:
            raise TableRefused(_("Rated tables are for people only: no bots."))
        if level and not _known_level(level):
            raise TableRefused(_("There is no bot level “%(level)s”."), level=level)
        seat = table.seats.filter(number=seat_number, user__isnull=True).first()
        if seat is None:
            raise TableRefused(_("That seat is not free."))
        seat.bot_level = level
        seat.save(update_fields=["bot_level"])
        store.notify_table(table)


def do_start_game(*, table_id: int, user) -> Game | None:
    """The host deals the first game; after a game each seated person presses
    "play again", and the next game is dealt once every person seated agreed
    (bots always do). Returns the new game, or None while others have not agreed.
    Empty seats get the table's bots."""
    with transaction.atomic():
        table = store.locked_table(table_id)
        if table.status == Table.Status.PLAYING:
            raise TableRefused(_("The game is already on."))
        if table.status == Table.Status.CLOSED:
            raise TableRefused(_("This table is closed."))
        if not table.rematch:
            raise TableRefused(_("The games at this table are dealt by its tournament, not by the players."))
        seat = table.seats.filter(user=user).first()
        first_game = not table.games.exists()
        if seat is None or (first_game and table.host_id != user.pk):
            raise TableRefused(_("Only the host starts the game."))
        if not seat.ready:
            seat.ready = True
            seat.save(update_fields=["ready"])
        if _not_ready(table):
            store.notify_table(table)  # the others see who agreed
            return None
        _fill_empty_seats(table)
        game = _deal_new_game(table)
        store.notify_table(table)
        return game


def do_deal_next_game(*, table_id: int) -> Game:
    """Code deals the next game at a table it runs (a tournament round's table,
    a benchmark), whatever the players pressed: they are committed to it."""
    with transaction.atomic():
        table = store.locked_table(table_id)
        if table.status == Table.Status.PLAYING:
            raise TableRefused(_("The game is already on."))
        if table.status == Table.Status.CLOSED:
            raise TableRefused(_("This table is closed."))
        _fill_empty_seats(table)
        game = _deal_new_game(table)
        store.notify_table(table)
        return game


def _refuse_event_table(table: Table) -> None:
    """A tournament round's seats are fixed: between its games too, nobody takes
    or gives up a seat (an outsider would play, and score, for an entrant)."""
    if table.managed_by_event:
        raise TableRefused(_("This table belongs to a tournament round: its seats are fixed."))


def _not_ready(table: Table) -> bool:
    """Someone seated has not agreed to the next deal yet."""
    return table.seats.filter(user__isnull=False, ready=False).exists()


def _known_level(level: str) -> bool:
    return bots.is_level(level)  # the offered levels and the legacy "random", "heuristic"


def _fill_empty_seats(table: Table) -> None:
    """Before a deal every seat needs a player or a bot: the table's bots fill the gaps."""
    empty = table.seats.filter(user__isnull=True, bot_level="")
    if empty.exists():
        if not table.bot_level:
            raise TableRefused(_("Every seat needs a player or a bot before the deal."))
        empty.update(bot_level=table.bot_level)


def _deal_new_game(table: Table) -> Game:
    """Deal with a fresh secret seed; the dealer is the last game's durak (else seat 0)."""
    rules = engine.Rules.from_dict(table.rules)
    previous = table.games.order_by("-number").first()
    dealer = 0
    if previous and previous.result and previous.result.get("durak") is not None:
        dealer = previous.result["durak"]
    seed = new_seed()
    position = deal(rules, seed, dealer, deal_method=engine.DEAL_METHOD)
    game = Game.objects.create(
        table=table,
        number=(previous.number + 1) if previous else 1,
        rules=table.rules,
        variant=table.variant,
        rated=table.rated and not table.is_private,  # (a private table opened as rated before that was refused)
        seed=seed,
        seed_hash=seed_hash(seed),
        dealer=dealer,
        deal_method=engine.DEAL_METHOD,
        turn_seconds=table.turn_seconds,
        state_json=position.to_json(),
    )
    for seat in table.seats.all():
        GameSeat.objects.create(
            game=game, number=seat.number, user=seat.user, bot_level=seat.bot_level, team=rules.team_of(seat.number)
        )
    schedule_new_game(game, position, timezone.now())
    table.seats.update(ready=False)  # "play again" after this game is asked anew
    table.status = Table.Status.PLAYING
    table.save(update_fields=["status", "updated_at"])
    return game


def new_seed() -> str:
    """A fresh secret seed: 256 bits from the OS, so no deal can be predicted."""
    return secrets.token_hex(32)
