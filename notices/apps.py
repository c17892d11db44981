from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NoticesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notices"
    verbose_name = _("Notifications")

    def ready(self):
        from battles import signals as battle_signals
        from games import extensions
        from tournaments import signals

        from . import receivers

        signals.registration_confirmed.connect(receivers.on_registration_confirmed, dispatch_uid="notices.registration")
        signals.checkin_opened.connect(receivers.on_checkin_opened, dispatch_uid="notices.checkin")
        signals.round_started.connect(receivers.on_round_started, dispatch_uid="notices.round")
        signals.event_finished.connect(receivers.on_event_finished, dispatch_uid="notices.final")
        battle_signals.club_invited.connect(receivers.on_club_invited, dispatch_uid="notices.club_invited")
        extensions.register(profile_sections=receivers.profile_sections)
