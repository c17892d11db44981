from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BattlesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "battles"
    verbose_name = _("Club battles")

    def ready(self):
        from clubs import extensions as club_extensions
        from tournaments import seating_groups
        from tournaments import signals as event_signals

        from . import receivers

        seating_groups.register(receivers.clubs_apart)
        event_signals.event_finished.connect(receivers.on_event_finished, dispatch_uid="battles.club_result")
        club_extensions.register(club_sections=receivers.club_sections)
