from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self):
        from games import extensions
        from ratings import at_table, counted, receivers

        receivers.connect()
        extensions.register(
            seat_marks=at_table.seat_marks,
            game_notes=at_table.game_notes,
            profile_sections=at_table.profile_sections,
            record_panels=at_table.record_panels,
            rated_when_ended=counted.counts,
        )
