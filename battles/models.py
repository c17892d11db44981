"""Club battles and the club rating.

A battle owns its event (`tournaments.Tournament`, one to one): rounds, games, timers, the
event's standings and exports are the event's. The battle adds the clubs (invited, each one
accepting or declining), which club each entrant plays for, and how many of a club's players
count (`top_k`). The club rating is one row per club and variant, moved by each recorded result
(`ClubResult`, once per source and id).
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.choices import Variant

#: A battle is fought by this many clubs at least and at most; a club's best 1 to 20 count.
MIN_CLUBS, MAX_CLUBS = 2, 50
MIN_TOP, MAX_TOP = 1, 20


class Battle(models.Model):
    tournament = models.OneToOneField("tournaments.Tournament", on_delete=models.CASCADE, related_name="battle")
    # (A club that is deleted leaves its battles to the other clubs: the battle keeps its event and board.)
    organiser = models.ForeignKey("clubs.Club", null=True, on_delete=models.SET_NULL, related_name="battles_organised")
    top_k = models.PositiveSmallIntegerField(
        _("players who count"),
        validators=[MinValueValidator(MIN_TOP), MaxValueValidator(MAX_TOP)],
        help_text=_("a club's score is the sum of its best players' points: this many of them"),
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("club battle")
        verbose_name_plural = _("club battles")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(top_k__gte=MIN_TOP, top_k__lte=MAX_TOP), name="battle_top_1_to_20")
        ]

    def __str__(self):
        return str(self.tournament)


class BattleClub(models.Model):
    """A club in a battle: invited, then accepted or declined by one of its leaders."""

    class Status(models.TextChoices):
        INVITED = "invited", pgettext_lazy("club in a battle", "invited")
        ACCEPTED = "accepted", pgettext_lazy("club in a battle", "accepted")
        DECLINED = "declined", pgettext_lazy("club in a battle", "declined")

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="clubs")
    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="battles")
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.INVITED)
    invited_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name = _("club in a battle")
        verbose_name_plural = _("clubs in battles")
        ordering = ["battle", "pk"]
        constraints = [models.UniqueConstraint(fields=["battle", "club"], name="battle_club_once")]

    def __str__(self):
        return f"{self.club_id} in {self.battle_id} ({self.status})"


class BattlePlayer(models.Model):
    """A player entered for his club (a pair: both partners, one entrant). The club is kept as it
    was at entry: a player who leaves his club mid-battle keeps his points for it."""

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="players")
    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    entrant = models.ForeignKey("tournaments.Entrant", on_delete=models.CASCADE, related_name="+")
    entered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("battle player")
        verbose_name_plural = _("battle players")
        ordering = ["battle", "pk"]
        constraints = [models.UniqueConstraint(fields=["battle", "user"], name="battle_player_once")]
        indexes = [models.Index(fields=["battle", "club"], name="battle_players_of_a_club")]

    def __str__(self):
        return f"{self.user_id} for {self.club_id} in {self.battle_id}"


class ClubRating(models.Model):
    """A club's rating in one variant: TrueSkill's mean and deviation, as the players' ratings."""

    club = models.ForeignKey("clubs.Club", on_delete=models.CASCADE, related_name="ratings")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    mu = models.FloatField()
    sigma = models.FloatField()
    results = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("club rating")
        verbose_name_plural = _("club ratings")
        constraints = [models.UniqueConstraint(fields=["club", "variant"], name="club_rating_once_per_variant")]
        indexes = [models.Index(fields=["variant", "-mu"], name="club_ladder")]

    def __str__(self):
        return f"{self.club_id} {self.variant}: {self.mu:.2f} ± {self.sigma:.2f}"


class ClubResult(models.Model):
    """One result of clubs (a battle, a match) as rated: recorded once per source and id.
    `changes`: club id -> [mu, sigma before, mu, sigma after]."""

    source = models.CharField(max_length=16)
    source_id = models.PositiveBigIntegerField()
    variant = models.CharField(max_length=16, choices=Variant.choices)
    placings = models.JSONField(help_text="club ids, best first, tied clubs in one list")
    changes = models.JSONField(default=dict)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("club result")
        verbose_name_plural = _("club results")
        ordering = ["-recorded_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["source", "source_id"], name="club_result_once")]

    def __str__(self):
        return f"{self.source} {self.source_id}"
