from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Kind(models.TextChoices):
    REGISTRATION = "registration", _("Registration confirmed")
    CHECKIN = "checkin", _("Check-in is open")
    ROUND = "round", _("Your table at each round start")
    FINAL = "final", _("Final standings")
    # To a club's leaders who run its events (battles.signals.club_invited).
    CLUB_INVITED = "club_invited", _("Your club is invited to a battle")


class Channel(models.TextChoices):
    EMAIL = "email", _("Email")
    PUSH = "push", _("Push notification")


class Preference(models.Model):
    """What one player asked to hear of, and in which language. Opt-in: nothing by default."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice_preference")
    email_kinds = models.JSONField(default=list, blank=True, help_text="Kind values to send by email")
    push_kinds = models.JSONField(default=list, blank=True, help_text="Kind values to send as push notifications")
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"notices of {self.user_id}"

    def kinds(self, channel: str) -> list[str]:
        return self.email_kinds if channel == Channel.EMAIL else self.push_kinds


class PushSubscription(models.Model):
    """One browser's Web Push subscription (PushSubscription.toJSON() of the browser)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"push of {self.user_id}"


class Sent(models.Model):
    """One message of a kind about one object to one person on one channel: sent at most once.

    `claimed_at` marks a sender at work (so two workers never both send), `sent_at` the
    success; a failure clears the claim, counts the attempt and keeps the error."""

    kind = models.CharField(max_length=16, choices=Kind.choices)
    object_key = models.CharField(max_length=64, help_text="what the message is about, e.g. round:12")
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel = models.CharField(max_length=8, choices=Channel.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.CharField(max_length=300, blank=True)
    # What the message told its reader (the final standings: his place and points), so that a
    # later correction is sent to those it tells something new.
    told = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "object_key", "recipient", "channel"], name="notice_sent_once")
        ]

    def __str__(self):
        return f"{self.kind} {self.object_key} to {self.recipient_id} by {self.channel}"
