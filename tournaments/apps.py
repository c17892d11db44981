from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self):
        try:
            from games.signals import game_finished
        except ImportError:  # the signal lands with the games app; the sweep records games meanwhile
            return
        from .receivers import on_game_finished

        game_finished.connect(on_game_finished, dispatch_uid="tournaments.record_game")
