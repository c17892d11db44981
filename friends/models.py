"""Whom a player follows, whom he keeps away, and the table invitations he was sent."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Follow(models.Model):
    """`follower` follows `followed`: `followed` is on his friends list (one way, as lichess)."""

    follower = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows")
    followed = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(condition=~models.Q(follower=models.F("followed")), name="follow_not_oneself"),
        ]

    def __str__(self):
        return f"{self.follower_id} follows {self.followed_id}"


class Block(models.Model):
    """`owner` keeps `other` away. Muted: `other` cannot invite him to a table. Blocked:
    nor follow him either (a follow he had is dropped)."""

    class Kind(models.TextChoices):
        MUTE = "mute", _("muted")
        BLOCK = "block", _("blocked")

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks")
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "other"], name="block_once")]

    def __str__(self):
        return f"{self.owner_id} {self.kind}s {self.other_id}"


class Invitation(models.Model):
    """`sender` asked `recipient` to his private table: the link is the table's invite link."""

    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_invitations")
    table_id = models.PositiveBigIntegerField(help_text="the table, by id (friends reads games through its selectors)")
    link = models.CharField(max_length=200, help_text="the table's invite link when it was sent")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["recipient", "-created_at"], name="invitations_received")]

    def __str__(self):
        return f"{self.sender_id} invites {self.recipient_id} to table {self.table_id}"
