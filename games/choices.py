"""The games app's enums, in the one module the other apps import them from.

`games.models` uses these for its fields (`Game.Status` is `GameStatus`), so
ratings, tournaments and reviews compare with `GameStatus.FINISHED` rather than
a copy of the string, without importing the models. The variant names are the
engine's (`games.engine.VARIANTS`); this module only gives them their labels.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from games import engine


class Variant(models.TextChoices):
    PODKIDNOY = engine.PODKIDNOY, _("Podkidnoy")
    PEREVODNOY = engine.PEREVODNOY, _("Perevodnoy")


class TableStatus(models.TextChoices):
    WAITING = "waiting", _("Waiting for players")
    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Game over")
    CLOSED = "closed", _("Closed")


class GameStatus(models.TextChoices):
    PLAYING = "playing", _("Playing")
    FINISHED = "finished", _("Finished")


class MoveSource(models.TextChoices):
    PLAYER = "player", _("player")
    BOT = "bot", _("bot")
    TIMEOUT = "timeout", _("time ran out")
    AUTOPILOT = "autopilot", _("autopilot")


class QueueStatus(models.TextChoices):
    WAITING = "waiting", _("Waiting")
    MATCHED = "matched", _("Seated")
    LEFT = "left", _("Left the queue")


class Address(models.TextChoices):
    """How a player asked the site to speak of him in Russian (verbs in the past agree with it)."""

    NEUTRAL = "", _("No preference: words without gender")
    HE = "he", _("He: masculine forms")
    SHE = "she", _("She: feminine forms")
