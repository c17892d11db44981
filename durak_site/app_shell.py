"""The site as an app on the home screen: its web app manifest, its service worker
(served from the root, so that its scope is the whole site) and the page the worker
shows when there is no network."""

import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

THEME_COLOUR = "#1f6b3a"  # the felt of the table and the icons
BACKGROUND_COLOUR = "#f4f1ea"
ICONS = [
    ("icons/icon-192.png", "192x192", "image/png", "any"),
    ("icons/icon-512.png", "512x512", "image/png", "any"),
    ("icons/maskable-512.png", "512x512", "image/png", "maskable"),
    ("icons/icon.svg", "any", "image/svg+xml", "any"),
]
# What the worker keeps for the offline page: its stylesheet and the icons. Never a page
# of the site (a table's HTML is live and personal) and never the websockets.
PRECACHE = ["css/site.css", "favicon.svg", "icons/icon-192.png"]


@require_safe
@cache_control(max_age=3600)
def manifest(request):
    data = {
        "id": "/",
        "name": pgettext("manifest", "Durak: the card game"),
        "short_name": _("Durak"),
        "description": _("Durak — the classic Russian card game."),
        "lang": get_language(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "icons": [
            {"src": static(path), "sizes": sizes, "type": kind, "purpose": purpose}
            for path, sizes, kind, purpose in ICONS
        ],
    }
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    return response


def _worker_source() -> str:
    found = finders.find("sw.js")
    return Path(found).read_text(encoding="utf-8")


@require_safe
@cache_control(no_cache=True)  # a new worker reaches the browsers at their next visit
def service_worker(request):
    config = {
        "offline": reverse("offline"),
        "static": static(""),
        "precache": [static(path) for path in PRECACHE],
        "hashed": not settings.DEBUG,  # collectstatic's hashed names (settings.STORAGES) never change
    }
    source = _worker_source()
    # A new version (a new cache) whenever the worker or a cached file's (hashed) name changes.
    config["version"] = hashlib.sha256((source + json.dumps(config, sort_keys=True)).encode()).hexdigest()[:16]
    body = f"self.DURAK_SW = {json.dumps(config)};\n{source}"
    response = HttpResponse(body, content_type="application/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def offline(request):
    return render(request, "offline.html", {"theme_colour": THEME_COLOUR})
