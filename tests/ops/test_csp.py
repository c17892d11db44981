"""Issue 16, item 7: "no Content-Security-Policy header".

Every page carries the policy of settings.CONTENT_SECURITY_POLICY (django-csp):
scripts and styles from the site only, no inline script, style or eval. The site
keeps working under it because nothing inline is left: no template holds a
<script> without src, an on*= handler, a <style> element or a style attribute,
and the pages as served hold none either; htmx is told to add no indicator
<style> of its own and to evaluate nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.support.games import make_user, open_game
from tests.tournaments.helpers import make_event

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"
INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>", re.I)
HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.I | re.S)
STYLE_ELEMENT = re.compile(r"<style\b", re.I)
STYLE_ATTRIBUTE = re.compile(r"<[^>]*\sstyle\s*=", re.I | re.S)


def inline_code(html: str) -> list[str]:
    found = []
    for name, pattern in [
        ("inline <script>", INLINE_SCRIPT),
        ("on*= handler", HANDLER),
        ("<style> element", STYLE_ELEMENT),
        ("style attribute", STYLE_ATTRIBUTE),
    ]:
        found += [f"{name}: {match.group(0)[:80]}" for match in pattern.finditer(html)]
    return found


def test_no_template_holds_inline_script_handlers_or_styles():
    offenders = {}
    for path in sorted(TEMPLATES.rglob("*.html")):
        found = inline_code(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(path.relative_to(TEMPLATES))] = found
    assert offenders == {}


def test_the_detector_sees_what_it_looks_for():
    assert inline_code('<script>alert(1)</script><form onsubmit="x()"><p style="color:red"><style>')
    assert inline_code("<form\n  method=post onSubmit='x'>")
    assert not inline_code('<script src="/static/x.js" defer></script><div data-confirm="on=1" class="x">')


def header(response) -> str:
    return response.headers.get("Content-Security-Policy", "")


def assert_strict(policy: str):
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


@pytest.fixture
def pages(client):
    """The site's pages as a seated player sees them, and as a visitor."""
    ann, ben = make_user("ann"), make_user("ben")
    game = open_game([ann, ben])
    event = make_event(table_size=2)
    return {
        "visitor": [reverse("games:home"), reverse("games:login"), reverse("tournaments:list"), "/no-such-page/"],
        "player": [
            reverse("games:home"),
            reverse("games:table", kwargs={"table_id": game.table_id}),
            reverse("tournaments:event", kwargs={"tournament_id": event.pk}),
            reverse("ratings:index"),
            reverse("games:profile", kwargs={"username": "ann"}),
        ],
        "ann": ann,
    }


def test_every_page_carries_the_policy_and_no_inline_code(client, pages):
    for url in pages["visitor"]:
        response = client.get(url, follow=True)
        assert_strict(header(response))
        assert inline_code(response.content.decode()) == [], url
    client.force_login(pages["ann"])
    for url in pages["player"]:
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        assert_strict(header(response))
        html = response.content.decode()
        assert inline_code(html) == [], url
        assert '"includeIndicatorStyles": false' in html and '"allowEval": false' in html


def test_the_resign_button_still_asks_through_the_static_script(client, pages):
    client.force_login(pages["ann"])
    html = client.get(pages["player"][1]).content.decode()
    assert 'class="t-resign" data-confirm="' in html
    assert "js/site.js" in html
    assert "form[data-confirm]" in (Path(settings.BASE_DIR) / "static" / "js" / "site.js").read_text()


@pytest.mark.django_db(transaction=True)
async def test_the_live_fragments_hold_no_inline_code_either():
    """What the sockets send is swapped into the page: the same rule (the table's
    regions are partly rendered in Python, games.table.rendering)."""
    from channels.db import database_sync_to_async

    from tests.support import sockets

    ann = await database_sync_to_async(make_user)("ann")
    ben = await database_sync_to_async(make_user)("ben")
    game = await database_sync_to_async(open_game)([ann, ben])
    cookie = await sockets.session_cookie(ann)
    table, first = await sockets.connect_table(game.table_id, cookie)
    lobby, _accepted = await sockets.connect("/ws/lobby/", cookie)
    try:
        assert 'class="t-resign" data-confirm="' in first
        assert inline_code(first) == []
        assert inline_code(await lobby.receive_from(timeout=sockets.FRAME_TIMEOUT)) == []
    finally:
        await table.disconnect()
        await lobby.disconnect()
