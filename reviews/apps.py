from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReviewsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reviews"
    verbose_name = _("Game reviews")

    def ready(self):
        from games import extensions
        from reviews import at_record

        extensions.register(record_panels=at_record.record_panels, move_marks=at_record.move_marks)
