"""A player's first evening in a real browser (issue 10): Debian's Chromium under Playwright.

A. Every page fits a 390x844 phone: no sideways scrolling.
B. The connection banner: the server stops, the banner says so at once and a card
   clicked meanwhile is not played later; the server comes back, and so does the table.
C. Autopilot: after resigning the page says the autopilot plays, with no cards to
   click, and "I'm back" returns the seat.
D. Two people press "play now" and land at the same table.
E. The replay's autoplay reaches the last move.

The server is a daphne process of this module (it must stop and start again on the
same port, with the same SQLite file), set up as tests/browser/conftest.py sets up its own.
"""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.browser.conftest import ROOT, ServerDB, _free_port, _server_env, _wait_until_serving

PHONE = {"width": 390, "height": 844}
STEP_TIMEOUT = 20_000
SCREENSHOTS = Path("/tmp")


class RestartableServer:
    """daphne on a fixed free port and SQLite file, which a test may stop and start again."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.db_path = workdir / "db.sqlite3"
        self.db = ServerDB(self.db_path)
        self.env = _server_env(self.db_path, self.port)
        self.log_path = workdir / "daphne.log"
        self.process = None

    def migrate(self) -> None:
        done = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "daphne",
                    "-b",
                    "127.0.0.1",
                    "-p",
                    str(self.port),
                    "durak_site.asgi:application",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        _wait_until_serving(self.url + "/", self.process, self.log_path)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()  # only the process this fixture started
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def query(self, sql: str, params=()):
        connection = sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=10)
        try:
            return connection.execute(sql, params).fetchall()
        finally:
            connection.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory, browser):
    # (`browser` first: on a machine without Chromium nothing is started at all)
    live = RestartableServer(tmp_path_factory.mktemp("experience-server"))
    live.migrate()
    live.start()
    try:
        yield live
    finally:
        live.stop()
        log = live.log_path.read_text(errors="replace")
        if "Traceback" in log:
            print(f"--- daphne log ({live.log_path}) ---\n{log[-6000:]}")


def new_page(browser, base_url: str, viewport=None, locale="ru-RU"):
    context = browser.new_context(locale=locale, base_url=base_url, viewport=viewport or {"width": 1280, "height": 900})
    context.set_default_timeout(STEP_TIMEOUT)
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda error: page.js_errors.append(str(error)))
    return context, page


def quick_game(page) -> int:
    """A guest's quick game against a bot, from the lobby; returns the table id."""
    page.goto("/")
    page.locator("form.quick-game button[type=submit]").click()
    page.wait_for_url(re.compile(r"/table/\d+/$"))
    page.wait_for_selector("#table-state[data-game]:not([data-game=''])")
    return int(re.search(r"/table/(\d+)/$", page.url).group(1))


def table_of(page) -> int:
    return int(re.search(r"/table/(\d+)/$", page.url).group(1))


def finish_by_resigning(page) -> int:
    """Resign (the dialog accepted) and let "finish now" end a game only bots still play; returns the game id."""
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("form.t-resign button").click()
    page.wait_for_selector(".t-autopilot")
    page.wait_for_function("() => document.querySelector('#table-state.over') !== null", timeout=90_000)
    return int(page.get_attribute("#table-state", "data-game"))


# ------------------------------------------------------------------ A. phones


def overflow(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def test_every_page_fits_a_phone(browser, server):
    context, page = new_page(browser, server.url, viewport=PHONE)
    try:
        checked = {}
        for path in ("/", "/login/", "/signup/"):
            page.goto(path)
            checked[path] = overflow(page)
        table_id = quick_game(page)
        checked["table (playing)"] = overflow(page)
        for tab in ("log", "chat", "table"):
            page.locator(f".t-tabs button[data-tab={tab}]").click()
            checked[f"table tab {tab}"] = overflow(page)
        assert page.locator(".t-tabs").is_visible(), "the log and the chat are tabs on a phone"
        game_id = finish_by_resigning(page)
        checked["table (finished)"] = overflow(page)
        page.screenshot(path=str(SCREENSHOTS / "durak-phone-table-finished.png"), full_page=True)
        username = page.locator(".account-nav .account-name").inner_text().strip()
        for path in (
            f"/games/{game_id}/",
            f"/games/{game_id}/?step=5",
            f"/games/{game_id}/verify/",
            f"/players/{username}/",
            "/tables/new/",
        ):
            page.goto(path)
            checked[path] = overflow(page)
        page.goto("/")
        page.select_option(".play-now select[name=size]", "6p")
        page.locator(".play-now button[type=submit]").click()
        page.wait_for_url("**/play/wait/")
        checked["/play/wait/"] = overflow(page)
        page.locator(".queue-leave button").click()
        page.goto(f"/table/{table_id}/")
        assert page.js_errors == []
        assert {path: px for path, px in checked.items() if px > 0} == {}, checked
    finally:
        context.close()


# ------------------------------------------------------------------ B. connection


def test_the_connection_banner_and_no_late_move(browser, server):
    context, page = new_page(browser, server.url)
    try:
        table_id = quick_game(page)
        page.wait_for_selector("#table-state.my-turn .t-hand .t-card.playable")
        page.wait_for_function("() => document.title.startsWith('Ваш ход')")  # the turn alert in the tab title
        moves = server.db.game(table_id)["move_count"]
        shown = page.get_attribute("#table-state", "data-moves")
        assert page.locator("#connection-banner").is_hidden()

        server.stop()
        page.wait_for_selector("#connection-banner.lost", state="visible", timeout=10_000)
        assert "Связь потеряна" in page.locator("#connection-banner").inner_text()
        card = page.locator("#table-state .t-hand .t-card.playable").first
        assert card.is_disabled(), "the cards are disabled while the socket is down"
        card.click(force=True)  # a click on it meanwhile...
        page.evaluate(  # ...and a frame forced through the move form: neither may be sent later
            """(action) => { const f = document.getElementById('move-form');
                 f.elements.action.value = action; f.requestSubmit(); }""",
            card.get_attribute("data-action") or "take",
        )
        time.sleep(1)

        server.start()
        page.wait_for_selector("#connection-banner.back", state="visible", timeout=30_000)
        assert "Связь восстановлена" in page.locator("#connection-banner").inner_text()
        page.wait_for_selector("#connection-banner", state="hidden", timeout=10_000)
        time.sleep(2)  # long enough for a queued frame to arrive and be played
        assert server.db.game(table_id)["move_count"] == moves, "a click made while offline was played later"
        assert page.get_attribute("#table-state", "data-moves") == shown
        assert not page.locator("#table-state .t-hand .t-card.playable").first.is_disabled()
        assert page.js_errors == []
    finally:
        context.close()


# ------------------------------------------------------------------ C. autopilot


def test_autopilot_shows_and_I_am_back_returns_the_seat(browser, server):
    context, page = new_page(browser, server.url)
    try:
        # Three seats (two bots) keep the game going while the page is looked at.
        page.goto("/")
        table_id = quick_game(page)
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("form.t-resign button").click()
        page.wait_for_selector(".t-autopilot .t-btn-back")
        assert page.locator(".t-status-text").inner_text().strip() == "Автопилот играет за вас."
        assert page.locator("#table-state .t-hand .t-card.playable").count() == 0
        assert page.locator("#table-state .t-actions button").count() == 0
        game_id = int(page.get_attribute("#table-state", "data-game"))
        [(autopilot,)] = server.query(
            "SELECT s.autopilot FROM games_gameseat s WHERE s.game_id = ? AND s.number = 0", (game_id,)
        )
        if server.db.game(table_id)["status"] == "finished":
            pytest.fail("the bots finished the game before the button could be pressed")
        assert autopilot == 1
        page.locator(".t-autopilot .t-btn-back").click()
        page.wait_for_load_state()
        [(autopilot, abandoned)] = server.query(
            "SELECT s.autopilot, s.abandoned FROM games_gameseat s WHERE s.game_id = ? AND s.number = 0", (game_id,)
        )
        if server.db.game(table_id)["status"] == "playing":
            assert (autopilot, abandoned) == (0, 0), "an unrated game counts normally again"
            assert page.locator(".t-autopilot").count() == 0
        assert page.js_errors == []
    finally:
        context.close()


# ------------------------------------------------------------------ D. play now


def test_two_people_press_play_now_and_land_at_the_same_table(browser, server):
    first_context, first = new_page(browser, server.url)
    second_context, second = new_page(browser, server.url, locale="en-US")
    try:
        for page in (first, second):
            page.goto("/")
            page.select_option(".play-now select[name=variant]", "perevodnoy")
            page.select_option(".play-now select[name=size]", "2")
        first.locator(".play-now button[type=submit]").click()
        first.wait_for_url("**/play/wait/")
        assert first.locator(".queue-wait").is_visible()
        second.locator(".play-now button[type=submit]").click()
        second.wait_for_url(re.compile(r"/table/\d+/$"))
        first.wait_for_url(re.compile(r"/table/\d+/$"), timeout=15_000)  # the waiting page asks and goes
        assert table_of(first) == table_of(second)
        seats = server.query(
            "SELECT COUNT(*) FROM games_tableseat WHERE table_id = ? AND user_id IS NOT NULL", (table_of(first),)
        )
        assert seats == [(2,)]
    finally:
        first_context.close()
        second_context.close()


# ------------------------------------------------------------------ E. replay


def test_replay_autoplay_reaches_the_end(browser, server):
    context, page = new_page(browser, server.url)
    try:
        quick_game(page)
        game_id = finish_by_resigning(page)
        page.goto(f"/games/{game_id}/?step=0")
        last = int(page.get_attribute(".replay-controls", "data-last"))
        assert last > 0
        page.select_option(".replay-speed", "120")
        page.locator(".replay-play").click()
        page.wait_for_function(
            "(last) => document.querySelector('#replay .replay-step').dataset.step === String(last)",
            arg=last,
            timeout=last * 1000 + 30_000,
        )
        assert page.locator(".replay-play").get_attribute("aria-pressed") == "false", "autoplay stops at the end"
        assert page.locator(f'.move-list li.current[data-step="{last}"]').count() == 1
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(
            "(step) => document.querySelector('#replay .replay-step').dataset.step === String(step)", arg=last - 1
        )
        assert page.js_errors == []
    finally:
        context.close()


# ------------------------------------------------------------------ issue 17: the table talks


from tests.browser.test_table_in_browser import make_a_move  # noqa: E402

TOAST_NEAR_HAND_JS = """() => {
  const toast = document.querySelector("#table-error.shown"), hand = document.querySelector("#table-state .t-hand");
  if (!toast || !hand) return null;
  const t = toast.getBoundingClientRect(), h = hand.getBoundingClientRect();
  return {gap: h.top - t.bottom, inView: t.top >= 0 && t.bottom <= innerHeight};
}"""


def test_issue17_refusals_are_a_toast_by_the_hand_and_emotes_a_bubble_at_the_seat(browser, server):
    context, page = new_page(browser, server.url)
    try:
        quick_game(page)
        page.wait_for_selector("#table-live:not(.offline)")  # (a click before the socket is open is dropped)
        # A card that cannot be played now says why when tapped (played on until there is one).
        for _move in range(40):
            page.wait_for_selector("#table-state.my-turn, #table-state.over")
            unplayable = page.locator('#table-state.my-turn .t-hand .t-card[aria-disabled="true"]')
            if unplayable.count():
                break
            make_a_move(page)
        why = unplayable.first.get_attribute("data-why")
        assert why and unplayable.first.get_attribute("title").endswith(why)
        unplayable.first.click(force=True)  # (Playwright waits for aria-disabled to go; a finger does not)
        assert page.locator("#t-hint").inner_text() == why and page.locator("#t-hint").is_visible()
        assert page.locator(".t-sound").inner_text() == "Звук: вкл."  # on by default
        page.locator(".t-sound").click()  # one tap mutes it, and it is remembered
        page.reload()
        page.wait_for_selector("#table-state[data-game]:not([data-game=''])")
        page.wait_for_selector("#table-live:not(.offline)")  # (the refused move below must reach the server)
        assert page.locator(".t-sound").inner_text() == "Звук: выкл."
        page.evaluate(  # a move the server refuses
            """() => { const f = document.getElementById('move-form');
                 f.elements.action.value = 'attack 2S'; f.requestSubmit(); }"""
        )
        page.wait_for_selector("#table-error.shown")
        box = page.evaluate(TOAST_NEAR_HAND_JS)
        assert box["inView"] and 0 <= box["gap"] <= 40, box
        page.locator(".t-talk > summary").click()
        page.locator(".t-emote-button", has_text="Спасибо").click()
        bubble = page.wait_for_selector("#t-emotes .t-bubble.t-show")
        assert bubble.inner_text() == "Спасибо"
        seat = page.locator("#table-state .t-bottom .t-seat").bounding_box()
        placed = bubble.bounding_box()
        assert abs(placed["y"] + placed["height"] - seat["y"]) < 40, (placed, seat)
        assert page.js_errors == []
    finally:
        context.close()
