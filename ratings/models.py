"""Ratings per player and variant, pair ratings, and every change, game by game.

The changes are the history: `RatingChange` holds a player's rating before and
after each rated game, in the order the games were applied (`seq`), so charts,
trends and a full recomputation are exact. `RatedGame` marks a game as applied
(applying it again changes nothing); `VariantState` is the per-variant row the
rating writers lock, so two workers never interleave one variant's games.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.choices import Variant
from ratings import model as rating_model


class Rating(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    variant = models.CharField(_("variant"), max_length=16, choices=Variant.choices)
    mu = models.FloatField(default=rating_model.MU)
    sigma = models.FloatField(default=rating_model.SIGMA)
    games = models.PositiveIntegerField(_("games"), default=0)
    last_played = models.DateTimeField(_("last played"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [models.UniqueConstraint(fields=["user", "variant"], name="one_rating_per_variant")]
        indexes = [models.Index(fields=["variant", "last_played"])]

    def __str__(self):
        return f"{self.user_id} {self.variant} {self.display}"

    @property
    def display(self) -> int:
        return rating_model.display_rating(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return rating_model.is_provisional(self.sigma)


class PairRating(models.Model):
    """Two players who played as partners: `first` has the smaller user id."""

    first = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    variant = models.CharField(_("variant"), max_length=16, choices=Variant.choices)
    mu = models.FloatField(default=rating_model.MU)
    sigma = models.FloatField(default=rating_model.SIGMA)
    games = models.PositiveIntegerField(_("games"), default=0)
    last_played = models.DateTimeField(_("last played"), null=True, blank=True)

    class Meta:
        verbose_name = _("pair rating")
        verbose_name_plural = _("pair ratings")
        constraints = [
            models.UniqueConstraint(fields=["first", "second", "variant"], name="one_pair_rating_per_variant"),
            models.CheckConstraint(condition=models.Q(first__lt=models.F("second")), name="pair_ordered_by_id"),
        ]
        indexes = [models.Index(fields=["variant", "last_played"])]

    def __str__(self):
        return f"{self.first_id}+{self.second_id} {self.variant} {self.display}"

    @property
    def display(self) -> int:
        return rating_model.display_rating(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return rating_model.is_provisional(self.sigma)


class RatingChange(models.Model):
    """One seat of one rated game: the player's rating before and after it."""

    # No index of their own: the (game, user) and (user, variant, seq) indexes lead with them,
    # and every index costs time when a recomputation writes the whole history again.
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="rating_changes", db_index=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes", db_index=False
    )
    variant = models.CharField(max_length=16, choices=Variant.choices)
    seq = models.PositiveIntegerField(help_text="the game's place in its variant's order (RatedGame.seq)")
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(help_text="the counted place (rank) the rating used")
    finished_at = models.DateTimeField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    display_before = models.IntegerField()
    display_after = models.IntegerField()

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["variant", "seq", "seat"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="one_change_per_player_and_game")]
        indexes = [
            models.Index(fields=["user", "variant", "seq"]),
            models.Index(fields=["variant", "finished_at"]),
        ]

    def __str__(self):
        return f"{self.user_id} game {self.game_id}: {self.display_before} -> {self.display_after}"

    @property
    def delta(self) -> int:
        return self.display_after - self.display_before


class RatedGame(models.Model):
    """A game whose result is in the ratings (or was looked at and rates nobody)."""

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="+")
    variant = models.CharField(max_length=16, choices=Variant.choices)
    finished_at = models.DateTimeField()
    seq = models.PositiveIntegerField(help_text="the order games were applied in, per variant")

    class Meta:
        verbose_name = _("rated game")
        verbose_name_plural = _("rated games")
        ordering = ["variant", "seq"]
        constraints = [models.UniqueConstraint(fields=["variant", "seq"], name="one_rated_game_per_seq")]
        # The repeated-games rule reads the last 24 hours' marks before each update.
        indexes = [models.Index(fields=["variant", "finished_at"], name="rated_game_by_finish")]

    def __str__(self):
        return f"{self.variant} #{self.seq}: game {self.game_id}"


class VariantState(models.Model):
    """Where a variant's ratings stand; its row is the writers' lock."""

    variant = models.CharField(max_length=16, choices=Variant.choices, primary_key=True)
    last_seq = models.PositiveIntegerField(default=0)
    last_finished_at = models.DateTimeField(null=True, blank=True)
    last_game_id = models.BigIntegerField(null=True, blank=True)
    recomputed_at = models.DateTimeField(null=True, blank=True)
    touched_at = models.DateTimeField(null=True, blank=True)
    # The model the variant's stored ratings were computed with (`rating_model.MODEL_FINGERPRINT`):
    # when the site's model or a parameter changes, the next rating writer (the sweep at
    # the latest) recomputes the variant from its games and stores the new one.
    model_fingerprint = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        verbose_name = _("variant state")
        verbose_name_plural = _("variant states")

    def __str__(self):
        return f"{self.variant}: {self.last_seq} games"
