from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self):
        from django.conf import settings
        from django.urls import register_converter

        from games.converters import CONVERTERS

        # Before any URLconf is read: every app's URLs may name them.
        for name, converter in CONVERTERS.items():
            register_converter(converter, name)
        from django.db.models.signals import post_save

        from games.services.accounts import keep_name_key

        # Every user, however made, gets a profile with his name's key (the sign-up check reads it).
        post_save.connect(keep_name_key, sender=settings.AUTH_USER_MODEL, dispatch_uid="games.keep_name_key")
