from django.contrib import admin
from django.urls import include, path

from . import app_shell, input_checks

# The site's own 400 page, with its header and in the visitor's language (Django's renders without the request).
handler400 = input_checks.bad_request

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("ratings/", include("ratings.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("battles/", include("battles.urls")),
    path("reviews/", include("reviews.urls")),
    path("notices/", include("notices.urls")),
    path("friends/", include("friends.urls")),
    # The home-screen app: the worker at the root, so that its scope is the whole site.
    path("manifest.webmanifest", app_shell.manifest, name="manifest"),
    path("sw.js", app_shell.service_worker, name="service-worker"),
    path("offline/", app_shell.offline, name="offline"),
    path("", include("games.urls")),
]
