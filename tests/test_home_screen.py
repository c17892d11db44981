"""Issue 17, "Home screen": a web app manifest and a service worker (scope "/") with an
offline page, so that the club installs as an app; the worker never keeps a page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse
from PIL import Image

pytestmark = pytest.mark.django_db


def test_issue17_manifest_makes_the_site_installable(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    data = json.loads(response.content)
    assert data["name"] == "Дурак — карточная игра"
    assert data["short_name"] == "Дурак"
    assert data["start_url"] == "/" and data["scope"] == "/"
    assert data["display"] == "standalone"
    assert data["theme_color"].startswith("#")
    sizes = {icon["sizes"] for icon in data["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    assert any(icon["purpose"] == "maskable" for icon in data["icons"])
    for icon in data["icons"]:
        name = icon["src"].removeprefix("/static/")
        assert finders.find(name), icon["src"]
    for icon in data["icons"]:
        if icon["type"] == "image/png":
            with Image.open(finders.find(icon["src"].removeprefix("/static/"))) as image:
                assert "x".join(map(str, image.size)) == icon["sizes"]


def test_issue17_every_page_links_the_manifest_and_the_worker(client):
    page = client.get(reverse("games:home")).content.decode()
    assert f'<link rel="manifest" href="{reverse("manifest")}">' in page
    assert '<meta name="service-worker" content="/sw.js">' in page
    assert '<meta name="theme-color"' in page
    assert "/static/js/app.js" in page


def test_issue17_service_worker_is_served_from_the_root_for_the_whole_site(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert "no-cache" in response["Cache-Control"]
    body = response.content.decode()
    config = json.loads(body.split("self.DURAK_SW = ", 1)[1].split(";\n", 1)[0])
    assert config["offline"] == reverse("offline")
    assert "/static/css/site.css" in config["precache"]
    assert len(config["version"]) == 16
    script = finders.find("sw.js")
    assert body.endswith(Path(script).read_text(encoding="utf-8"))


def test_issue17_service_worker_never_keeps_pages_or_sockets(client):
    body = client.get("/sw.js").content.decode()
    config = json.loads(body.split("self.DURAK_SW = ", 1)[1].split(";\n", 1)[0])
    # Only the offline page and static files are ever stored: no table page, nothing dynamic.
    assert all(url.startswith("/static/") for url in config["precache"])
    assert 'request.mode === "navigate"' in body
    navigate = body.split('request.mode === "navigate"', 1)[1].split("return;", 1)[0]
    assert "cache.put" not in navigate and "caches.match(CONFIG.offline)" in navigate
    listener = body.split('addEventListener("fetch"', 1)[1]
    assert "cache.put(" not in listener  # only the static files' helpers above it store anything
    assert "fromCacheThenNetwork(request)" in listener.split("CONFIG.static", 1)[1]
    assert 'request.method !== "GET"' in body and '"/ws/"' in body


def test_issue17_offline_page_is_translated_and_impersonal(client, django_user_model):
    user = django_user_model.objects.create_user("masha")
    client.force_login(user)
    response = client.get(reverse("offline"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Нет соединения" in page
    assert "Сейчас нет сети. Партии идут на сервере: когда сеть вернётся, откройте страницу снова." in page
    assert "Попробовать снова" in page
    assert "masha" not in page and "csrfmiddlewaretoken" not in page  # the worker keeps it for everyone
