"""An arena in a real browser (issue 20, "Tests": a player finishes a game and is taken to
the next table without a click).

A director creates an arena on the director's page (tables of two, the short 24-card
deck); Anna and Boris enter it on the event page and wait there. The director starts it:
the server deals their first table, and the seat socket takes each page to it by itself.
Both resign (the autopilot plays the game out on the server); the game is recorded, the
server seats them again, and each page is taken to the new table, again without a click.

The server is the real daphne process of tests/browser/conftest.py (embedded Celery worker
and beat: the finished game's nudge and the sweep run there, as in production).
"""

from __future__ import annotations

import re
import sqlite3
import time
from datetime import timedelta

from tests.browser.test_table_in_browser import new_page, sign_up
from tests.browser.test_tournament_in_browser import PHONE, SHOTS, fits_the_phone, local_time, manage_shell

NEXT_TABLE_TIMEOUT = 90_000  # ms: the autopilot plays the game out, the sweep seats them again
TABLE_URL = re.compile(r"/table/(\d+)/$")


def create_arena(page, name: str) -> int:
    page.goto("/tournaments/direct/")
    form = page.locator("form.event-form")
    form.locator("[name=name]").fill(name)
    form.locator("[name=format]").select_option("arena")
    form.locator("[name=arena_minutes]").fill("20")
    form.locator("[name=table_size]").fill("2")
    form.locator("[name=rounds]").fill("")  # an arena has no rounds
    form.locator("[name=deck]").select_option("24")
    form.locator("[name=starts_at]").fill(local_time(timedelta(days=1)))
    form.locator("button[type=submit]:not([name=draft])").click()
    page.wait_for_url(re.compile(r"/tournaments/\d+/direct/$"))
    return int(re.search(r"/tournaments/(\d+)/direct/$", page.url).group(1))


def table_id_of(page) -> int:
    return int(TABLE_URL.search(page.url).group(1))


def arena_tables(server, event_id: int) -> dict[int, list[str]]:
    """The arena's tables in the server's database: {table id: usernames seated}."""
    connection = sqlite3.connect(f"file:{server.db.path}?mode=ro", uri=True, timeout=10)
    try:
        rows = connection.execute(
            "SELECT rt.table_id, u.username FROM tournaments_roundtable rt "
            "JOIN tournaments_round r ON r.id = rt.round_id "
            "JOIN tournaments_entrant e ON e.tournament_id = r.tournament_id "
            "JOIN auth_user u ON u.id = e.user_id "
            "WHERE r.tournament_id = ? AND rt.table_id IS NOT NULL "
            "AND EXISTS (SELECT 1 FROM json_each(rt.entrants) WHERE json_each.value = e.id)",
            (event_id,),
        ).fetchall()
    finally:
        connection.close()
    tables: dict[int, list[str]] = {}
    for table_id, username in rows:
        tables.setdefault(table_id, []).append(username)
    return {table_id: sorted(names) for table_id, names in tables.items()}


def test_arena_players_are_taken_to_their_next_table_without_a_click(browser, daphne_server):
    started = time.monotonic()
    contexts = {}
    try:
        for name in ("dora", "anna", "boris"):
            contexts[name], page = new_page(browser, daphne_server.url)
            sign_up(page, name)
        director, anna, boris = (contexts[name].pages[0] for name in ("dora", "anna", "boris"))
        manage_shell(
            daphne_server,
            "from django.contrib.auth.models import Group, User; "
            "User.objects.get(username='dora').groups.add(Group.objects.get(name='Tournament directors'))",
        )
        event_id = create_arena(director, "Arena night")
        for page in (anna, boris):
            page.goto(f"/tournaments/{event_id}/")
            assert "How the arena scores" in page.locator(".arena-rules h2").inner_text()
            page.locator(f"form[action='/tournaments/{event_id}/register/'] button").click()
            page.wait_for_url(f"**/tournaments/{event_id}/")
            page.locator("#tournament-notice").wait_for(state="attached")

        director.locator("button[name=action][value=start]").click()
        director.wait_for_url(f"**/tournaments/{event_id}/direct/")

        # The first deal: each page goes to the table by itself.
        first = {}
        for name, page in (("anna", anna), ("boris", boris)):
            page.wait_for_url(TABLE_URL, timeout=NEXT_TABLE_TIMEOUT)
            first[name] = table_id_of(page)
            page.locator("#table-state .t-hand .t-card").first.wait_for()
        assert first["anna"] == first["boris"], "the two of them at one table of two"
        assert arena_tables(daphne_server, event_id) == {first["anna"]: ["anna", "boris"]}
        assert anna.locator("form.t-berserk button").inner_text().strip() == "Berserk"
        anna.screenshot(path=str(SHOTS / "durak-browser-arena-table.png"), full_page=True)

        # Both resign: the autopilot plays the game out; nobody clicks anything after this.
        for page in (anna, boris):
            page.evaluate("window.__stayed = true")
            page.once("dialog", lambda dialog: dialog.accept())
            page.locator("#table-state form.t-resign button").click()

        second = {}
        for name, page in (("anna", anna), ("boris", boris)):
            page.wait_for_url(
                lambda url, old=first[name]: bool(TABLE_URL.search(url)) and int(TABLE_URL.search(url).group(1)) != old,
                timeout=NEXT_TABLE_TIMEOUT,
            )
            second[name] = table_id_of(page)
            page.locator("#table-state .t-hand .t-card").first.wait_for()
            assert page.evaluate("window.__stayed === undefined"), f"{name}'s page is a new one: it was taken there"
        assert second["anna"] == second["boris"] != first["anna"]
        assert daphne_server.db.game(first["anna"])["status"] == "finished"
        assert arena_tables(daphne_server, event_id)[second["anna"]] == ["anna", "boris"]

        boris.goto(f"/tournaments/{event_id}/")
        standings = boris.locator("#event-panel .arena-standings tbody tr")
        standings.first.wait_for()
        assert sorted(standings.locator(".arena-player").all_inner_texts()) == ["anna", "boris"]
        assert "playing 2" in boris.locator("#event-panel .arena-counts").inner_text()
        boris.screenshot(path=str(SHOTS / "durak-browser-arena-event.png"), full_page=True)
        # The board and the scoring box fit a phone, in both languages.
        for language in ("ru", "en"):
            contexts["boris"].add_cookies([{"name": "django_language", "value": language, "url": daphne_server.url}])
            boris.set_viewport_size(PHONE)
            boris.goto(f"/tournaments/{event_id}/")
            assert boris.locator("html").get_attribute("lang") == language
            boris.locator("#event-panel .arena-board").wait_for()
            fits_the_phone(boris)
        for page in (anna, boris, director):
            assert not page.js_errors, page.js_errors
        print(f"\narena in the browser: {time.monotonic() - started:.1f} s")
    finally:
        for context in contexts.values():
            context.close()
