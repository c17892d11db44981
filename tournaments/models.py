"""Pairs, events and what happens in them.

The database is the truth of an event: its exact times (registration,
check-in, each round's start and time limit) live here, and the Celery tasks
(tournaments.tasks) only act on what these rows say is due. Live tables and
games belong to the games app and are referred to by string foreign keys.
"""

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.choices import Variant

from . import registry


def validate_tiebreaks(value):
    """The tie-breaks are names of standings.METRICS, each once (the registry says which, and why not)."""
    from .standings import tiebreak_refusal

    refusal = tiebreak_refusal(value)
    if refusal is not None:
        raise ValidationError(refusal, code="tiebreaks")


class Pair(models.Model):
    """Two players who enter pair events together and sit opposite at 2v2 tables."""

    class Status(models.TextChoices):
        INVITED = "invited", _("invited")
        # (a context of its own: Django's own "active" is "активный", which a pair, "пара", is not)
        ACTIVE = "active", pgettext_lazy("pair status", "active")
        DECLINED = "declined", _("declined")
        DISSOLVED = "dissolved", _("dissolved")

    player_one = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pairs_as_first", verbose_name=_("player")
    )
    player_two = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pairs_as_second", verbose_name=_("partner")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pairs_created", verbose_name=_("created by")
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.INVITED)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    answered_at = models.DateTimeField(_("answered"), null=True, blank=True)
    dissolved_at = models.DateTimeField(_("dissolved"), null=True, blank=True)

    class Meta:
        verbose_name = _("pair")
        verbose_name_plural = _("pairs")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(player_one=models.F("player_two")), name="pair_of_two_people"),
            models.UniqueConstraint(
                fields=["player_one", "player_two"],
                condition=Q(status__in=["invited", "active"]),
                name="one_live_pair_per_two_people",
            ),
        ]

    def __str__(self):
        return f"{self.player_one} & {self.player_two}"

    @property
    def members(self):
        return [self.player_one, self.player_two]


class Tournament(models.Model):
    class Kind(models.TextChoices):
        INDIVIDUAL = "individual", _("individual")
        PAIRS = "pairs", _("pairs (2v2)")

    class Format(models.TextChoices):
        SWISS = "swiss", _("Swiss")
        ROUND_ROBIN = "round_robin", _("round robin")
        KNOCKOUT = "knockout", _("knockout")
        # Out after the second lost match: winners' and losers' brackets (event_formats_double_elimination).
        DOUBLE_ELIMINATION = "double_elim", _("double elimination")
        # A fixed time in which whoever finishes a game is seated again at once (services/arena.py).
        ARENA = "arena", _("arena")

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        SCHEDULED = "scheduled", _("scheduled")
        REGISTRATION = "registration", _("registration open")
        CHECKIN = "checkin", _("check-in open")
        RUNNING = "running", _("running")
        PAUSED = "paused", _("paused")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    # Under way: its rounds are seated and played. Paused is under way too (the round being
    # played goes on), only no round starts until the director resumes.
    UNDER_WAY = (Status.RUNNING, Status.PAUSED)

    name = models.CharField(_("name"), max_length=120)
    description = models.TextField(_("description"), blank=True)
    variant = models.CharField(_("variant"), max_length=16, choices=Variant.choices, default=Variant.PODKIDNOY)
    rules = models.JSONField(_("rules"), default=dict, blank=True, help_text="games.engine.Rules(...).to_dict()")
    kind = models.CharField(_("entrants"), max_length=10, choices=Kind.choices, default=Kind.INDIVIDUAL)
    table_size = models.PositiveSmallIntegerField(
        _("players at a table"), default=4, help_text=_("2 to 6; pairs always play 2v2 at four")
    )
    format = models.CharField(_("format"), max_length=12, choices=Format.choices, default=Format.SWISS)
    rounds = models.PositiveSmallIntegerField(_("rounds"), default=4)
    games_per_round = models.PositiveSmallIntegerField(
        _("games per round"), default=1, help_text=_("games at a table in a round; points are summed")
    )
    registration_opens = models.DateTimeField(_("registration opens"), null=True, blank=True)
    registration_closes = models.DateTimeField(_("registration closes"), null=True, blank=True)
    checkin_opens = models.DateTimeField(_("check-in opens"), null=True, blank=True)
    checkin_closes = models.DateTimeField(_("check-in closes"), null=True, blank=True)
    starts_at = models.DateTimeField(_("starts at"))
    pause_between_rounds = models.DurationField(_("pause between rounds"), default=timedelta(minutes=2))
    round_time_limit = models.DurationField(_("round time limit"), null=True, blank=True)
    turn_seconds = models.PositiveSmallIntegerField(_("turn timer, seconds"), null=True, blank=True, default=30)
    no_show_grace = models.DurationField(
        _("no-show grace"),
        default=timedelta(minutes=2),
        help_text=_("an entrant who has not come to his table this long after the deal forfeits the game"),
    )
    rated = models.BooleanField(_("rated"), default=False)
    # A house bot may fill an empty or abandoned seat only where the event says so;
    # a game with a bot in it is never rated.
    house_bots_allowed = models.BooleanField(
        _("house bots may fill seats"),
        default=False,
        help_text=_("The director may seat a house bot in place of an absent entrant; such games are never rated."),
    )
    max_entrants = models.PositiveIntegerField(_("maximum entrants"), null=True, blank=True)
    arena_minutes = models.PositiveSmallIntegerField(
        _("arena duration, minutes"), null=True, blank=True, help_text=_("an arena: how long it lasts from its start")
    )
    berserk_allowed = models.BooleanField(
        _("berserk allowed"),
        default=True,
        help_text=_("an arena: a player may halve his turn timer in a game for an extra point if he wins it"),
    )
    third_place_match = models.BooleanField(
        _("third-place match"),
        default=False,
        help_text=_("a knockout at tables of two: the semi-final losers play for third place"),
    )
    points_table = models.JSONField(
        _("points by place"), default=list, blank=True, help_text=_("points for 1st, 2nd, ... place; empty: default")
    )
    tiebreaks = models.JSONField(
        _("tie-breaks"),
        default=list,
        blank=True,
        validators=[validate_tiebreaks],
        help_text=_("the tie-breaks' names in order, each once; empty: the format's default"),
    )
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.SCHEDULED)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    registration_opened_at = models.DateTimeField(null=True, blank=True)
    registration_closed_at = models.DateTimeField(null=True, blank=True)
    checkin_opened_at = models.DateTimeField(null=True, blank=True)
    checkin_closed_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    ratings_nudged_at = models.DateTimeField(null=True, blank=True)
    # The one-time key of the form that created the event: a second submit of the same
    # form (a double click on "Create") finds the event made by the first.
    creation_key = models.CharField(max_length=64, null=True, blank=True, unique=True, editable=False)

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-starts_at"]
        constraints = [
            models.CheckConstraint(condition=Q(table_size__gte=2, table_size__lte=6), name="table_of_two_to_six"),
            models.CheckConstraint(condition=Q(rounds__gte=1), name="at_least_one_round"),
            models.CheckConstraint(condition=Q(games_per_round__gte=1), name="at_least_one_game_per_round"),
        ]

    def __str__(self):
        return self.name

    @property
    def is_under_way(self) -> bool:
        return self.status in self.UNDER_WAY

    @property
    def is_pairs(self) -> bool:
        return self.kind == self.Kind.PAIRS

    @property
    def entrants_per_table(self) -> int:
        """Pairs play 2v2 at four: two entrants a table."""
        return 2 if self.is_pairs else self.table_size

    @property
    def event_format(self) -> registry.EventFormat:
        """The event's format object (tournaments.registry): what the format is and how it runs."""
        return registry.of_format(self.format)

    @property
    def arena_ends_at(self):
        """An arena under way: when its time is up (no game is dealt from then on)."""
        if not self.event_format.continuous or self.started_at is None or not self.arena_minutes:
            return None
        return self.started_at + timedelta(minutes=self.arena_minutes)


class Entrant(models.Model):
    class State(models.TextChoices):
        ACTIVE = "active", _("playing")
        WITHDRAWN = "withdrawn", _("withdrawn")
        DISQUALIFIED = "disqualified", _("disqualified")
        # Registered past max_entrants: never plays; the first is promoted when a place frees before the start.
        WAITING = "waiting", _("on the waiting list")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    pair = models.ForeignKey(Pair, null=True, blank=True, on_delete=models.PROTECT, related_name="entries")
    registered_at = models.DateTimeField(_("registered"), auto_now_add=True)
    checked_in = models.BooleanField(_("checked in"), default=False)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    state = models.CharField(_("state"), max_length=12, choices=State.choices, default=State.ACTIVE)
    state_changed_at = models.DateTimeField(null=True, blank=True)
    late = models.BooleanField(_("late entry"), default=False)
    joined_round = models.PositiveSmallIntegerField(_("first round"), default=1)
    byes = models.PositiveSmallIntegerField(_("byes"), default=0)
    eliminated_in_round = models.PositiveSmallIntegerField(null=True, blank=True)
    seed = models.PositiveIntegerField(_("seed"), null=True, blank=True, help_text=_("1 is the best; set at the start"))
    requested_bye_round = models.PositiveSmallIntegerField(
        _("requested bye"), null=True, blank=True, help_text=_("the round he asked to sit out (Swiss; one per event)")
    )
    kept = models.BooleanField(
        _("kept despite absences"), default=False, help_text=_("the director keeps him in after two absences")
    )
    # An arena: paused (not seated again until he comes back), free since (who waited longest
    # is seated first; empty while he plays), left (withdrawn by himself: his points stand).
    arena_paused = models.BooleanField(_("paused in the arena"), default=False)
    arena_free_since = models.DateTimeField(null=True, blank=True)
    arena_left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("entrant")
        verbose_name_plural = _("entrants")
        ordering = ["registered_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(pair__isnull=True))
                | (Q(user__isnull=True) & Q(pair__isnull=False)),
                name="entrant_is_a_player_or_a_pair",
            ),
            models.UniqueConstraint(
                fields=["tournament", "user"], condition=Q(user__isnull=False), name="one_entry_per_player"
            ),
            models.UniqueConstraint(
                fields=["tournament", "pair"], condition=Q(pair__isnull=False), name="one_entry_per_pair"
            ),
        ]

    def __str__(self):
        return str(self.pair) if self.pair_id else str(self.user)

    @property
    def is_active(self) -> bool:
        return self.state == self.State.ACTIVE

    def user_ids(self) -> list[int]:
        if self.pair_id:
            return [self.pair.player_one_id, self.pair.player_two_id]
        return [self.user_id]


class Round(models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("scheduled")
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField(_("round"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    starts_at = models.DateTimeField(_("starts at"))
    started_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(_("time limit"), null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    byes = models.JSONField(default=list, blank=True, help_text="entrant ids left out of this round")
    flags = models.JSONField(default=list, blank=True, help_text="why the seating deviates from the ideal")
    seated_by_director = models.BooleanField(default=False)
    # The seating stored on a scheduled round is a draft the director may edit; players see it
    # once it is published (or the round starts). `drafted_for`: the entrants and scores it was computed from.
    published_at = models.DateTimeField(null=True, blank=True)
    drafted_for = models.JSONField(default=list, blank=True, help_text="entrant ids and scores of the draft")

    class Meta:
        verbose_name = pgettext_lazy("tournament", "round")
        verbose_name_plural = pgettext_lazy("tournament", "rounds")
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="one_round_per_number")]

    def __str__(self):
        return f"{self.tournament} #{self.number}"


class RoundTable(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(_("table"))
    table = models.ForeignKey("games.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    entrants = models.JSONField(default=list, help_text="entrant ids in seat order")
    games_played = models.PositiveSmallIntegerField(default=0)
    done = models.BooleanField(default=False)

    class Meta:
        verbose_name = _("round table")
        verbose_name_plural = _("round tables")
        ordering = ["round", "number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="one_table_per_number")]

    def __str__(self):
        return f"{self.round} table {self.number}"


class Result(models.Model):
    """One entrant's result in one game (or a bye: no table, no game)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="results")
    round_table = models.ForeignKey(RoundTable, null=True, blank=True, on_delete=models.CASCADE, related_name="results")
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="results")
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    game_number = models.PositiveSmallIntegerField(default=0, help_text="nth game of the round at the table; 0: bye")
    place = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    points = models.FloatField(_("points"), default=0)
    is_durak = models.BooleanField(_("durak"), default=False)
    is_bye = models.BooleanField(_("bye"), default=False)
    absent = models.BooleanField(_("absent"), default=False, help_text=_("forfeited: never came to the table"))
    berserk = models.BooleanField(_("berserk"), default=False, help_text=_("an arena: he halved his turn timer"))
    adjudicated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    adjudicated_at = models.DateTimeField(null=True, blank=True)
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    corrected_at = models.DateTimeField(null=True, blank=True)
    original_points = models.FloatField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("result")
        verbose_name_plural = _("results")
        ordering = ["round", "round_table", "game_number", "place"]
        constraints = [
            models.UniqueConstraint(fields=["round", "entrant", "game_number"], name="one_result_per_game_and_entrant")
        ]

    def __str__(self):
        return f"{self.entrant}: {self.points}"


class StuckStep(models.Model):
    """A step of an event that failed and is being retried: the event's own move
    (no table), recording or dealing at one table, or a no-show forfeit there
    (tournaments.absence; without a table: marking the absences of timed-out
    games). Deleted once it succeeds.

    The sweep tries it again after a growing pause (`next_attempt_at`) while the
    rest of the event goes on, logs it once, when it first fails, and the
    director's page shows it with the actions that resolve it ("retry now",
    "end this table's round as played").
    """

    class Step(models.TextChoices):
        ADVANCE = "advance", _("moving the event on")
        RECORD = "record", _("recording a game")
        DEAL = "deal", _("dealing the next game")
        NO_SHOW = "no_show", _("forfeiting a no-show")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stuck_steps")
    step = models.CharField(max_length=10, choices=Step.choices, default=Step.ADVANCE)
    round_table = models.ForeignKey(RoundTable, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    failures = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=300, blank=True)
    first_failed_at = models.DateTimeField()
    last_failed_at = models.DateTimeField()
    next_attempt_at = models.DateTimeField(db_index=True)

    class Meta:
        verbose_name = _("stuck step")
        verbose_name_plural = _("stuck steps")
        ordering = ["first_failed_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "step", "round_table"], name="one_stuck_step_per_kind")
        ]

    def __str__(self):
        return f"{self.tournament}: {self.step} ×{self.failures}"


class DirectorAction(models.Model):
    """What a director did to an event and why: the event's history on the director's page.

    `detail` holds what the action needs to be understood later: for a correction
    the table, the game, and the old and new places and points of each entrant;
    for a reopen or a cancel the status before and after.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="director_actions")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(_("when"))
    action = models.CharField(_("action"), max_length=24)
    reason = models.CharField(_("why"), max_length=200, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name = _("director's action")
        verbose_name_plural = _("director's actions")
        ordering = ["-at", "-pk"]

    def __str__(self):
        return f"{self.tournament}: {self.action}"


class Announcement(models.Model):
    """A director's message to an event's entrants, kept as a dated list: a removed one
    stays in the director's view (who removed it and when) but no longer shows to players."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="announcements")
    text = models.CharField(_("text"), max_length=500)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    at = models.DateTimeField(_("announced"))
    removed_at = models.DateTimeField(_("removed"), null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name = _("announcement")
        verbose_name_plural = _("announcements")
        ordering = ["-at", "-pk"]

    def __str__(self):
        return self.text[:40]
