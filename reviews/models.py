"""A review of one seat's decisions in one finished game, and the decisions it judged."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Review(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("review status", "Waiting for the analysis")
        RUNNING = "running", pgettext_lazy("review status", "Being analysed")
        DONE = "done", pgettext_lazy("review status", "Done")
        FAILED = "failed", pgettext_lazy("review status", "Failed")

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="reviews")
    seat = models.PositiveSmallIntegerField(help_text="the reviewed seat: only its view is analysed")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="game_reviews"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    nudged_at = models.DateTimeField(
        null=True, blank=True, help_text="when its task was last sent (the sweep sends it again if nothing came of it)"
    )
    nudges = models.PositiveIntegerField(
        default=0, help_text="messages sent so far; each carries its number, and only the last one sent is worked on"
    )
    taken_at = models.DateTimeField(null=True, blank=True, help_text="when a worker last took its message")
    # Kept apart from nudged_at: a part that sends the rest on moves nudged_at past taken_at,
    # and the proof that the queue reached a message sent at this time would go with it.
    taken_sent_at = models.DateTimeField(
        null=True, blank=True, help_text="when the message a worker last took had been sent"
    )
    # What the judgement used, kept with it: a review is computed once and stays as it was made.
    inaccuracy = models.FloatField(help_text="a drop in the chance of not losing from this much is an inaccuracy")
    mistake = models.FloatField(help_text="... from this much a mistake")
    blunder = models.FloatField(help_text="... from this much a blunder")
    deals = models.PositiveIntegerField(help_text="sampled deals per decision at most")
    playouts = models.PositiveIntegerField(help_text="playouts per decision at most")
    decisions = models.PositiveIntegerField(default=0, help_text="decisions with a choice that were judged")
    progress = models.PositiveIntegerField(default=0, help_text="the moves before this number are judged")

    class Meta:
        ordering = ["-requested_at"]
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="one_review_per_seat")]
        indexes = [
            # The sweep's question: the latest message a worker took (reviews.services._latest_taken_sent).
            models.Index(fields=["nudged_at"], name="review_by_last_message"),
            models.Index(fields=["taken_sent_at"], name="review_by_last_taken_message"),
            # The daily limit's count of one person's reviews.
            models.Index(fields=["user", "requested_at"], name="review_by_user_and_time"),
        ]

    def __str__(self):
        return f"Review of seat {self.seat} in game {self.game_id}"


class ReviewedDecision(models.Model):
    class Label(models.TextChoices):
        GOOD = "", _("good")
        INACCURACY = "inaccuracy", _("inaccuracy")
        MISTAKE = "mistake", _("mistake")
        BLUNDER = "blunder", _("blunder")

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="judged")
    move_number = models.PositiveIntegerField(help_text="Move.number of the move played (from 0)")
    played = models.CharField(max_length=32)
    best = models.CharField(max_length=32)
    value_played = models.FloatField(help_text="chance of not losing after the move played")
    value_best = models.FloatField(help_text="chance of not losing after the best move")
    drop = models.FloatField()
    label = models.CharField(max_length=10, choices=Label.choices, blank=True, default="")

    class Meta:
        ordering = ["move_number"]
        constraints = [models.UniqueConstraint(fields=["review", "move_number"], name="one_judgement_per_move")]

    def __str__(self):
        return f"Move {self.move_number} of {self.review}: {self.label or 'good'}"
