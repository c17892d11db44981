"""The live table in a real browser: Playwright driving Debian's headless Chromium.

A. A new user signs up, opens a 2-player table with a bot from the lobby's
   "New table" form, starts it, plays a whole game by clicking cards and
   buttons while the server's own Celery worker moves the bot, and sees the
   result.
B. Two browser users at one table: one opens it, the other sits down from the
   lobby, the game deals itself, each sees only his own hand, and every click
   of one updates the other's page live, to the end of the game.

The server is a real daphne process (tests/browser/conftest.py); what a page
may show is checked against the server's own database: the game replayed
from its seed and move log gives every card each seat may have seen.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from games import engine
from tests.support.snapshots import card_codes, event_cards, visible_now

SCREENSHOT = Path("/tmp/durak-browser-table-midgame.png")
RESULT_SCREENSHOT = Path("/tmp/durak-browser-table-result.png")
PASSWORD = "Kx9-durak-browser-2026"
GAME_TIMEOUT = 150  # seconds for a whole game against the bot
STEP_TIMEOUT = 20_000  # ms for one page update
MAX_MOVES = 400

MOVE_APPLIED_JS = """([old]) => {
  const state = document.getElementById("table-state");
  if (state && state.dataset.moves !== old) return "moved";
  const error = document.querySelector("#table-error.shown");
  return error ? "error: " + error.textContent.trim() : false;
}"""


# ------------------------------------------------------------------ helpers


def new_page(browser, base_url: str):
    context = browser.new_context(locale="en-US", base_url=base_url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(STEP_TIMEOUT)
    page = context.new_page()
    page.on("pageerror", lambda error: page.js_errors.append(str(error)))
    page.js_errors = []
    return context, page


def sign_up(page, username: str) -> None:
    page.goto("/")
    page.locator(".account-nav a[href='/signup/']").click()
    page.wait_for_url("**/signup/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.locator("main form.stacked-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/$"))
    assert page.locator(".account-nav .account-name").inner_text().strip() == username


def open_table(page, bot_level: str) -> int:
    """The lobby's "New table" form: 2 players, bots of `bot_level` ('' for none) for empty seats."""
    page.goto("/")
    page.locator(".lobby-actions a[href='/tables/new/']").click()
    page.wait_for_url("**/tables/new/")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=bot_level]", bot_level)
    page.locator("main form.stacked-form button[type=submit]").click()
    page.wait_for_url(re.compile(r"/table/\d+/$"))
    return int(re.search(r"/table/(\d+)/$", page.url).group(1))


def moves_shown(page) -> int | None:
    value = page.get_attribute("#table-state", "data-moves")
    return int(value) if value else None


def hand_codes(page) -> list[str]:
    return page.locator("#table-state .t-hand .t-card[data-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.card)"
    )


def make_a_move(page) -> str:
    """Click a sensible move: the first playable card (and, for a defence with a choice,
    the first highlighted attack card), else the first button (take / pass / transfer).
    Waits until the page shows the move applied; returns what was clicked."""
    old = page.get_attribute("#table-state", "data-moves") or ""
    cards = page.locator("#table-state .t-hand .t-card.playable")
    if cards.count():
        card = cards.first
        code = card.get_attribute("data-card")
        action = card.get_attribute("data-action")
        card.click()
        if action:
            clicked = f"card {code} ({action})"
        else:  # two steps: the card, then the attack card it covers
            target = page.locator("#table-state .t-pairs .t-card.choosable").first
            target.wait_for()
            clicked = f"card {code}, then {target.get_attribute('data-card')}"
            target.click()
    else:
        button = page.locator("#table-state .t-actions button[data-action]").first
        clicked = f"button {button.get_attribute('data-action')}"
        button.click()
    outcome = page.wait_for_function(MOVE_APPLIED_JS, arg=[old]).json_value()
    assert outcome == "moved", f"{clicked}: {outcome}"
    return clicked


class Knowledge:
    """Every card each seat may have seen so far, from the server's database.

    The game is replayed from its seed and move log; after each move a seat
    may know its hand, the table, the face-up trump, publicly known cards
    and whatever the move's events told it.
    """

    def __init__(self, db, table_id: int):
        self.db, self.table_id = db, table_id
        self.position = None
        self.applied = 0
        self.allowed: dict[int | None, set[str]] = {}

    def update(self) -> engine.Game:
        game = self.db.game(self.table_id)
        if self.position is None:
            self.position = engine.Game.new(
                engine.Rules.from_dict(game["rules"]), seed=game["seed"], dealer=game["dealer"]
            )
            seats = list(range(self.position.n)) + [None]
            self.allowed = {s: visible_now(self.position, s) for s in seats}
        for seat, action, _source in self.db.moves(game["id"])[self.applied :]:
            events = self.position.act(seat, action)
            self.applied += 1
            for viewer in self.allowed:
                self.allowed[viewer] |= visible_now(self.position, viewer) | event_cards(events, viewer)
        assert self.position == engine.Game.from_json(game["state_json"]), "replay differs from the cache"
        return self.position

    def check_page(self, page, seat: int) -> None:
        """The page shows exactly the seat's hand, and no card the seat may not see."""
        shown = moves_shown(page)
        assert shown == self.applied, f"page at move {shown}, database at {self.applied}"
        assert sorted(hand_codes(page)) == sorted(self.position.hand(seat))
        leaked = card_codes(page.content()) - self.allowed[seat]
        assert not leaked, f"seat {seat}'s page shows {sorted(leaked)}"


def wait_for_state(page, moves: int) -> None:
    page.wait_for_function(
        "([n]) => { const s = document.getElementById('table-state'); return s && s.dataset.moves === n; }",
        arg=[str(moves)],
    )


# ------------------------------------------------------------------ A: against a bot


def test_a_new_user_plays_a_whole_game_against_a_bot(browser, daphne_server):
    started = time.monotonic()
    context, page = new_page(browser, daphne_server.url)
    try:
        sign_up(page, "anna")
        table_id = open_table(page, "medium")
        # The waiting table: the host starts it; the bot takes the empty seat.
        page.locator("#table-state .t-seating-actions form[action$='/start/'] button").click()
        page.locator("#table-state .t-hand .t-card").first.wait_for()
        assert page.get_attribute("#table-state", "data-seat") == "0"
        page.evaluate("window.__sameDocument = true")  # no reload from here on
        knowledge = Knowledge(daphne_server.db, table_id)
        seats = daphne_server.db.game_seats(daphne_server.db.game(table_id)["id"])
        assert [(s["username"], s["bot_level"]) for s in seats] == [("anna", ""), (None, "medium")]

        clicks = []
        while True:
            assert time.monotonic() - started < GAME_TIMEOUT, f"no result after {len(clicks)} clicks"
            assert len(clicks) < MAX_MOVES
            # The bot moves by itself (the server's worker); wait for our turn or the end.
            page.locator("#table-state.my-turn, #table-state .t-result").first.wait_for(timeout=STEP_TIMEOUT)
            knowledge.update()
            if page.locator("#table-state .t-result").count():
                break
            if knowledge.applied != moves_shown(page):
                wait_for_state(page, knowledge.applied)  # a newer state is on its way
                continue
            knowledge.check_page(page, 0)
            if len(clicks) == 6:
                page.mouse.move(1, 1)  # no hover lift in the picture
                page.screenshot(path=str(SCREENSHOT), full_page=True)
            clicks.append(make_a_move(page))

        knowledge.update()
        assert page.evaluate("window.__sameDocument") is True
        result = page.locator("#table-state .t-result")
        assert result.locator("h2").inner_text().strip() == "Game over"
        assert result.locator(".t-places li").count() == 2
        page.screenshot(path=str(RESULT_SCREENSHOT), full_page=True)
        game = daphne_server.db.game(table_id)
        assert game["status"] == "finished" and knowledge.position.is_over
        assert game["move_count"] == knowledge.applied == moves_shown(page)
        seats = daphne_server.db.game_seats(game["id"])
        assert sorted(s["place"] for s in seats) in ([1, 2], [1, 1])
        assert all(s["counted_place"] == s["place"] for s in seats)
        sources = {source for _seat, _action, source in daphne_server.db.moves(game["id"])}
        assert sources == {"player", "bot"}  # the bot moved by itself, through the worker
        leaked = (
            card_codes(page.content()) - knowledge.allowed[0] - set(engine.Game.from_json(game["state_json"]).hand(1))
        )  # after the end every hand is open
        assert not leaked
        assert not page.js_errors, page.js_errors
        assert len(clicks) >= 5
        print(
            f"\ngame against the bot: {len(clicks)} clicks, {knowledge.applied} moves, "
            f"{time.monotonic() - started:.1f} s; result: {result.inner_text()!r}"
        )
    finally:
        context.close()


# ------------------------------------------------------------------ B: two people


def test_two_browser_users_play_at_one_table_and_see_each_others_moves_live(browser, daphne_server):
    started = time.monotonic()
    context1, page1 = new_page(browser, daphne_server.url)
    context2, page2 = new_page(browser, daphne_server.url)
    try:
        sign_up(page1, "boris")
        sign_up(page2, "vera")
        table_id = open_table(page1, "")
        assert page1.locator("#table-state .t-seating").count() == 1  # waiting for a second player
        page1.evaluate("window.__sameDocument = true")

        # Vera finds the table in the lobby and sits down: the table is full and deals itself.
        page2.goto("/")
        page2.locator(f"#lobby-table-{table_id} form[action$='/join/'] button").click()
        page2.wait_for_url(f"**/table/{table_id}/")
        page2.locator("#table-state .t-hand .t-card").first.wait_for()
        page2.evaluate("window.__sameDocument = true")
        # Boris's page deals the game in front of him, without a reload.
        page1.locator("#table-state .t-hand .t-card").first.wait_for()
        pages = {0: page1, 1: page2}
        assert page1.get_attribute("#table-state", "data-seat") == "0"
        assert page2.get_attribute("#table-state", "data-seat") == "1"

        knowledge = Knowledge(daphne_server.db, table_id)
        position = knowledge.update()
        for seat, page in pages.items():
            wait_for_state(page, 0)
            knowledge.check_page(page, seat)
            # Of the other hand, a page may show only what is public (the lowest trump that
            # decided who opens): check_page compared every card code on it with that.
            assert not set(hand_codes(page)) & set(position.hand(1 - seat))
            assert page.locator(".t-hand").count() == 1

        clicks = {0: 0, 1: 0}
        while not position.is_over:
            assert time.monotonic() - started < GAME_TIMEOUT, f"no result after {sum(clicks.values())} clicks"
            assert sum(clicks.values()) < MAX_MOVES
            to_move = position.to_move()
            seat = to_move[0]
            mover, other = pages[seat], pages[1 - seat]
            assert mover.locator("#table-state.my-turn").count() == 1
            if 1 - seat not in to_move:
                assert other.locator("#table-state.my-turn").count() == 0
            make_a_move(mover)
            clicks[seat] += 1
            position = knowledge.update()
            # The other page updates live (no reload): its move counter follows.
            wait_for_state(other, knowledge.applied)
            for s, page in pages.items():
                knowledge.check_page(page, s)

        for page in pages.values():
            page.locator("#table-state .t-result").wait_for()
            assert page.evaluate("window.__sameDocument") is True
            assert not page.js_errors, page.js_errors
        assert clicks[0] >= 3 and clicks[1] >= 3, clicks
        game = daphne_server.db.game(table_id)
        assert game["status"] == "finished"
        seats = daphne_server.db.game_seats(game["id"])
        assert [s["username"] for s in seats] == ["boris", "vera"]
        assert all(s["place"] is not None for s in seats)
        print(f"\ntwo people: clicks {clicks}, {knowledge.applied} moves, {time.monotonic() - started:.1f} s")
    finally:
        context1.close()
        context2.close()
