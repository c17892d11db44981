from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self):
        from django.conf import settings
        from django.urls import register_converter
        from django.urls.converters import get_converters

        from games.converters import CONVERTERS

        # Before any URLconf is read: every app's URLs may name them. Once per process: a second
        # setup (some tests run it again) must not re-register them (refused from Django 6).
        for name, converter in CONVERTERS.items():
            if name not in get_converters():
                register_converter(converter, name)
        from django.db.models.signals import post_save

        from games.services.accounts import keep_name_key

        # Every user, however made, gets a profile with his name's key (the sign-up check reads it).
        post_save.connect(keep_name_key, sender=settings.AUTH_USER_MODEL, dispatch_uid="games.keep_name_key")
