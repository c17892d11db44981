from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self):
        # Each format registers its object with tournaments.registry (the reads, the drivers and
        # the workflows look the event's format up there; the objects sit above the drivers).
        from django.contrib.auth import get_user_model
        from django.db.models.signals import m2m_changed, post_migrate

        from . import event_formats, event_formats_double_elimination  # noqa: F401
        from .directors import on_groups_changed, on_post_migrate

        m2m_changed.connect(
            on_groups_changed, sender=get_user_model().groups.through, dispatch_uid="tournaments.director_staff"
        )
        post_migrate.connect(on_post_migrate, sender=self, dispatch_uid="tournaments.directors_are_staff")
        from games.signals import game_finished, table_page_will_render

        from .receivers import on_game_finished, on_table_page

        game_finished.connect(on_game_finished, dispatch_uid="tournaments.record_game")
        table_page_will_render.connect(on_table_page, dispatch_uid="tournaments.table_page")
        from games import extensions

        from .at_profile import profile_sections
        from .at_table import seat_actions

        extensions.register(profile_sections=profile_sections, seat_actions=seat_actions)
