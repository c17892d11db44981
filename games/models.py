"""Tables, games and their move logs.

The database is the truth: a game is its rules, a secret seed and the ordered
log of moves. `Game.state_json` is only a cache of the engine position after
`move_count` moves; it can always be rebuilt from seed and moves.
"""

import secrets

from django.conf import settings
from django.db import models

from games.choices import Address, GameStatus, MoveSource, QueueStatus, TableStatus


class Profile(models.Model):
    """What the club knows of a person beyond Django's User."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    is_guest = models.BooleanField(default=False)
    # The user name as two names must differ in (games.services.accounts.name_key), so the
    # sign-up check is one indexed look-up and the unique index settles two sign-ups at once.
    # A look-alike made outside sign-up (admin, code) keeps "key#pk" instead of failing.
    name_key = models.CharField(max_length=255, unique=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    emotes_muted = models.BooleanField(
        default=False, help_text="this player sees no emotes or quick phrases from anyone, at any table"
    )
    # How to speak of him in Russian (games.wording): past verbs and adjectives agree with it;
    # none chosen, the messages use phrasing that needs no gender.
    address = models.CharField(max_length=3, choices=Address.choices, blank=True, default=Address.NEUTRAL)
    # An address given at sign-up or on the profile, waiting for its link to be followed. The
    # user's own `email` is only ever an address confirmed that way (or set by the admin): mail
    # of any kind goes there alone, and the old one keeps working until the new one is confirmed.
    pending_email = models.EmailField(blank=True, default="")

    def __str__(self):
        return self.user.username


def new_invite_token() -> str:
    return secrets.token_urlsafe(12)


class Table(models.Model):
    Status = TableStatus

    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="hosted_tables"
    )
    rules = models.JSONField(help_text="games.engine.Rules.to_dict()")
    variant = models.CharField(max_length=16, db_index=True)
    seats_count = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveSmallIntegerField(null=True, blank=True, help_text="T7; empty: no timer")
    is_private = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    rated = models.BooleanField(default=False)
    bot_level = models.CharField(
        max_length=32, blank=True, default="", help_text="bots of this level fill empty seats at the start"
    )
    rematch = models.BooleanField(
        default=True, help_text="players may deal another game after one ends (not at a tournament round's table)"
    )
    managed_by_event = models.BooleanField(
        default=False, help_text="a tournament round's table: its seats are fixed, nobody joins or leaves it"
    )
    arrival_grace = models.DurationField(
        null=True,
        blank=True,
        help_text="a tournament's no-show grace: a player who has not come is not timed out this long after a deal",
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"Table {self.pk} ({self.variant}, {self.seats_count})"


class TableSeat(models.Model):
    """Who sits where at a table, across the games played there."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="table_seats"
    )
    bot_level = models.CharField(max_length=32, blank=True, default="")
    ready = models.BooleanField(
        default=False, help_text="this player agreed to the next deal (joined, or pressed play again); reset by a deal"
    )
    seen_at = models.DateTimeField(
        null=True, blank=True, help_text="when this seat's player first opened the table's live socket"
    )
    offline_since = models.DateTimeField(
        null=True, blank=True, help_text="when this seat's player closed his last socket; empty while he is there"
    )
    emotes_muted = models.BooleanField(
        default=False, help_text="this seat's player sees no emotes or quick phrases at this table"
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="one_player_per_seat"),
            models.UniqueConstraint(
                fields=["table", "user"], name="one_seat_per_player", condition=models.Q(user__isnull=False)
            ),
        ]

    def __str__(self):
        return f"Seat {self.number} at table {self.table_id}"

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and not self.bot_level


class Game(models.Model):
    Status = GameStatus

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField(help_text="the nth game at its table")
    rules = models.JSONField()
    variant = models.CharField(max_length=16, db_index=True)
    rated = models.BooleanField(default=False)
    seed = models.CharField(max_length=64, help_text="secret until the game is over")
    seed_hash = models.CharField(max_length=64, help_text="SHA-256 of the seed, shown from the start")
    dealer = models.PositiveSmallIntegerField(default=0)
    deal_method = models.PositiveSmallIntegerField(
        default=1, help_text="how the seed shuffles the deck (docs/fairness.md): 1 legacy, 2 specified"
    )
    turn_seconds = models.PositiveSmallIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING, db_index=True)
    move_count = models.PositiveIntegerField(default=0)
    state_json = models.TextField(help_text="cache: the engine position after move_count moves")
    deadline = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text="when the seats to move time out (T7)"
    )
    bot_due_at = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text="when a bot or autopilot seat should act"
    )
    result = models.JSONField(null=True, blank=True, help_text="places, durak, losers, draw")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="game_number_per_table")]

    def __str__(self):
        return f"Game {self.pk} at table {self.table_id}"

    @property
    def is_over(self) -> bool:
        return self.status == self.Status.FINISHED


class GameSeat(models.Model):
    """One participant of one game: what ratings and standings read."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="game_seats"
    )
    bot_level = models.CharField(max_length=32, blank=True, default="")
    team = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(null=True, blank=True, help_text="R19-R21, from the engine")
    counted_place = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="the place ratings and standings use: last if abandoned"
    )
    is_loser = models.BooleanField(default=False)
    abandoned = models.BooleanField(default=False, help_text="went on autopilot: counts as last place")
    autopilot = models.BooleanField(default=False)
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    grace_used = models.BooleanField(
        default=False, help_text="the one extra wait of this game a disconnected player gets before a timeout"
    )
    berserk = models.BooleanField(
        default=False, help_text="arena: this player halved his turn timer for one extra point if he wins"
    )

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="one_record_per_seat")]

    def __str__(self):
        return f"Seat {self.number} of game {self.game_id}"

    @property
    def is_bot_controlled(self) -> bool:
        return bool(self.bot_level) or self.autopilot


class Move(models.Model):
    Source = MoveSource

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    number = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.CharField(max_length=32)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.PLAYER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="one_move_per_number")]

    def __str__(self):
        return f"Move {self.number} of game {self.game_id}: {self.seat} {self.action}"


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    name = models.CharField(max_length=150)
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self):
        return f"{self.name}: {self.text}"


class QueueEntry(models.Model):
    """One person's place in the "play now" queue (one row per person, reused).

    The database is the truth of who waits for what: matching reads the waiting
    rows of one kind of game under a lock and seats the first arrivals together.
    `seen_at` is refreshed while the person's page asks how the wait goes; a row
    not seen for a while is somebody who has gone, and is never matched.
    """

    Status = QueueStatus

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_entry")
    variant = models.CharField(max_length=16)
    players = models.PositiveSmallIntegerField()
    partners = models.BooleanField(default=False)
    rated = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True)
    created_at = models.DateTimeField(help_text="when this wait began")
    seen_at = models.DateTimeField(help_text="when the person's page last asked")
    table = models.ForeignKey(Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        indexes = [models.Index(fields=["status", "variant", "players"], name="queue_waiting_kind")]

    def __str__(self):
        return f"{self.user_id} waits for {self.variant}/{self.players}"


class SweepHeartbeat(models.Model):
    """The last time the one-second sweep of due games ran (one row, pk 1).

    A gap longer than a few seconds is time the site, or its timers, were down:
    the next sweep first moves every running turn deadline on by it
    (games.services.clock), so nobody's clock ran while nobody could move.
    """

    beat_at = models.DateTimeField()
    resumed_at = models.DateTimeField(null=True, blank=True, help_text="when the sweep last found an outage over")

    def __str__(self):
        return f"sweep at {self.beat_at}"
