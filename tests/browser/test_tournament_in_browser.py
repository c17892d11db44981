"""A tournament in a real browser: Playwright driving Debian's headless Chromium.

A director (a member of the "Tournament directors" group, not a superuser)
creates an event on the director's page; two players enter it and check in
on the event page. The director starts it: each player is told his table by
the seat socket on whatever page he has open (one the lobby, one the event
page), goes there and both play the game by clicking cards (should it run
long, both resign and the autopilot plays it out on the server); the event
records it and finishes, and the event page shows it without a reload.

Then every tournament page (list, event, pair, director) must fit a 390 px
wide phone in Russian and in English, without sideways scrolling.

The server is the real daphne process of tests/browser/conftest.py; the one
thing done outside the pages is putting the director into his group, by a
`manage.py shell` against the server's own database file.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

from tests.browser.test_table_in_browser import make_a_move, new_page, sign_up

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path("/tmp")
PHONE = {"width": 390, "height": 844}
MAX_CLICKS = 120
EVENT_TIMEOUT = 45_000  # ms: the game recorded (or played out by the autopilot), the event over


def manage_shell(server, code: str) -> str:
    """Python run by `manage.py shell` against the server's database file."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "PYTEST_ADDOPTS"}}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "durak_site.settings",
            "SQLITE_PATH": str(server.db.path),
            "CELERY_EMBEDDED": "false",
            "LOG_LEVEL": "WARNING",
        }
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def local_time(delta: timedelta) -> str:
    """A value for a datetime-local field; a day's margin hides the server's time zone."""
    return (datetime.now() + delta).strftime("%Y-%m-%dT%H:%M")


def fits_the_phone(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width} px wide at 390 px"


def create_event(page, name: str) -> int:
    """The director's page: a one-round event for two at tables of two with the short
    24-card deck (T1: a short game), check-in open."""
    page.goto("/tournaments/direct/")
    form = page.locator("form.event-form")
    form.locator("[name=name]").fill(name)
    form.locator("[name=table_size]").fill("2")
    form.locator("[name=rounds]").fill("1")
    form.locator("[name=deck]").select_option("24")
    form.locator("[name=checkin_opens]").fill(local_time(-timedelta(days=1)))
    form.locator("[name=starts_at]").fill(local_time(timedelta(days=1)))
    # Create and publish at once (the form's other button saves a draft).
    form.locator("button[type=submit]:not([name=draft])").click()
    page.wait_for_url(re.compile(r"/tournaments/\d+/direct/$"))
    return int(re.search(r"/tournaments/(\d+)/direct/$", page.url).group(1))


def enter_and_check_in(page, event_id: int) -> None:
    page.goto(f"/tournaments/{event_id}/")
    page.locator(f"form[action='/tournaments/{event_id}/register/'] button").click()
    page.locator(f"form[action='/tournaments/{event_id}/check-in/'] button").click()
    page.wait_for_url(f"**/tournaments/{event_id}/")
    assert page.locator(f"form[action='/tournaments/{event_id}/check-in/']").count() == 0
    assert page.locator(".message.success").count() == 1


def test_a_director_runs_an_event_that_two_players_play_in_the_browser(browser, daphne_server):
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

        event_id = create_event(director, "Friday Cup")
        for page in (anna, boris):
            enter_and_check_in(page, event_id)
        director.reload()
        assert director.locator(".entrants-table tbody tr").count() == 2
        director.set_viewport_size({"width": 1280, "height": 900})
        director.screenshot(path=str(SHOTS / "durak-browser-director.png"), full_page=True)

        # Anna waits in the lobby, Boris on the event page: the seat socket finds both.
        anna.goto("/")
        anna.evaluate("window.__sameDocument = true")
        boris.evaluate("window.__sameDocument = true")
        director.locator("button[name=action][value=start]").click()
        director.wait_for_url(f"**/tournaments/{event_id}/direct/")
        tables = {}
        for name, page in (("anna", anna), ("boris", boris)):
            go = page.locator("#tournament-notice a.button[href^='/table/']")
            go.wait_for()
            assert page.evaluate("window.__sameDocument") is True, f"{name}'s page was reloaded"
            tables[name] = go.get_attribute("href")
        assert tables["anna"] == tables["boris"], "one table of two"
        boris.locator("#event-panel .round-tables li.mine a").wait_for()  # the event page, live
        boris.screenshot(path=str(SHOTS / "durak-browser-event-round.png"), full_page=True)

        for page in (anna, boris):
            page.locator("#tournament-notice a.button").click()
            page.wait_for_url(f"**{tables['anna']}")
            page.locator("#table-state .t-hand .t-card").first.wait_for()
            # At the table the notice would only cover the hand: it hides there.
            assert page.locator("#tournament-notice .tournament-seat").is_hidden()
        clicks = 0
        while clicks < MAX_CLICKS and not anna.locator("#table-state .t-result").count():
            to_move = [p for p in (anna, boris) if p.locator("#table-state.my-turn").count()]
            if to_move:
                make_a_move(to_move[0])
                clicks += 1
            else:
                time.sleep(0.05)  # between a move and the next state
        if not anna.locator("#table-state .t-result").count():
            # Still dealing cards after all these clicks: both leave, the autopilot plays it out.
            for page in (anna, boris):
                page.once("dialog", lambda dialog: dialog.accept())
                page.locator("#table-state form.t-resign button").click()
        boris.goto(f"/tournaments/{event_id}/")
        boris.evaluate("window.__sameDocument = true")
        boris.locator("#event-panel .event-standings").wait_for(timeout=EVENT_TIMEOUT)
        boris.locator("#event-panel .event-crosstable").wait_for(timeout=EVENT_TIMEOUT)
        assert boris.evaluate("window.__sameDocument") is True
        # The table is done: the seat socket takes the notice away.
        boris.locator("#tournament-notice .tournament-seat").wait_for(state="detached")
        rows = boris.locator("#event-panel .event-standings tbody tr")
        assert rows.count() == 2
        assert sorted(rows.locator("td:nth-child(2)").all_inner_texts()) == ["anna", "boris"]
        for page in (anna, boris, director):
            assert not page.js_errors, page.js_errors
        boris.screenshot(path=str(SHOTS / "durak-browser-event-finished.png"), full_page=True)

        # Anna invites Boris to a pair: the pair page exists for the phone check.
        anna.goto("/tournaments/pairs/")
        anna.fill("form.pair-invite input[name=partner]", "boris")
        anna.locator("form.pair-invite button").click()
        anna.locator(".pair-list a[href^='/tournaments/pairs/']").first.wait_for()
        pair_url = anna.locator(".pair-list a[href^='/tournaments/pairs/']").first.get_attribute("href")

        pages = ["/tournaments/", f"/tournaments/{event_id}/", pair_url, "/tournaments/pairs/"]
        director_pages = ["/tournaments/direct/", f"/tournaments/{event_id}/direct/"]
        for language in ("ru", "en"):
            for context in contexts.values():
                context.add_cookies([{"name": "django_language", "value": language, "url": daphne_server.url}])
            for page, urls in ((anna, pages), (director, director_pages)):
                page.set_viewport_size(PHONE)
                for url in urls:
                    page.goto(url)
                    assert page.locator("html").get_attribute("lang") == language
                    fits_the_phone(page)
            anna.goto("/tournaments/")
            anna.screenshot(path=str(SHOTS / f"durak-browser-tournaments-phone-{language}.png"), full_page=True)
            if language == "ru":
                anna.goto(f"/tournaments/{event_id}/")
                anna.screenshot(path=str(SHOTS / "durak-browser-event-phone.png"), full_page=True)
                director.goto(f"/tournaments/{event_id}/direct/")
                director.screenshot(path=str(SHOTS / "durak-browser-director-phone.png"), full_page=True)
        print(f"\ntournament in the browser: {clicks} clicks, {time.monotonic() - started:.1f} s")
    finally:
        for context in contexts.values():
            context.close()
