"""A club is a row, never a schema: its people are memberships with a role and the owner's grants."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Club(models.Model):
    class JoinPolicy(models.TextChoices):
        OPEN = "open", _("anyone may join")
        REQUEST = "request", _("by request")
        INVITATION = "invitation", _("by invitation")

    class Language(models.TextChoices):
        RUSSIAN = "ru", _("Russian")
        ENGLISH = "en", _("English")

    slug = models.SlugField(_("address"), max_length=40, unique=True)
    name = models.CharField(_("name"), max_length=80)
    # What two clubs' names must differ in (look-alike letters and case folded): one indexed
    # look-up at founding, and the unique index settles two foundings at once.
    name_key = models.CharField(max_length=255, unique=True)
    description = models.TextField(_("description"), blank=True, max_length=4000)
    city = models.CharField(_("city"), max_length=80, blank=True)
    language = models.CharField(_("language"), max_length=2, choices=Language.choices, default=Language.RUSSIAN)
    join_policy = models.CharField(
        _("how people join"), max_length=10, choices=JoinPolicy.choices, default=JoinPolicy.OPEN
    )
    is_public = models.BooleanField(_("public page"), default=True)
    founded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    # Suspended by the site's admin: its page says so, and no leader acts for it until lifted.
    suspended_at = models.DateTimeField(null=True, blank=True)
    suspended_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self):
        return self.name


class Membership(models.Model):
    """`user` belongs to `club`. A leader holds the grants the owner gave him; the owner holds all."""

    class Role(models.TextChoices):
        OWNER = "owner", _("owner")
        LEADER = "leader", _("leader")
        MEMBER = "member", _("member")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_memberships")
    role = models.CharField(max_length=6, choices=Role.choices, default=Role.MEMBER)
    # The owner's grants to a leader (clubs.selectors.PERMISSIONS names them).
    may_run_events = models.BooleanField(default=False)
    may_manage_members = models.BooleanField(default=False)
    may_post_news = models.BooleanField(default=False)
    may_moderate = models.BooleanField(default=False)
    # A member who muted the club gets none of its messages off the site.
    muted = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="club_membership_once"),
            models.UniqueConstraint(fields=["club"], condition=models.Q(role="owner"), name="club_one_owner"),
        ]
        indexes = [models.Index(fields=["user", "club"], name="clubs_of_a_player")]

    def __str__(self):
        return f"{self.user_id} in {self.club_id} ({self.role})"
