"""A phone that loses its own network at its turn (Playwright's offline mode), at 390x844
and 360x740, in Russian.

The page notices (the browser says it is offline; the heartbeat, games.table.heartbeat,
for a network gone without a word): the banner «Связь потеряна…» shows, the hand is
greyed and disabled, and a card tapped meanwhile is never played, not even once the
network is back. The server hears nothing from the phone any more and counts its player
gone as when he closes the tab: a spectator's page shows his seat «не в сети», and the
turn that runs out meanwhile gives him the one grace wait of the game, not «Время вышло:
ход сделан за вас». Back online, the banner says the table is up to date, his seat is
«в сети» again, and the move he then makes is his first since the network went.
"""

from __future__ import annotations

import time

import pytest

from tests.browser.test_phone_layout import new_context, new_page, sign_up, wait_for_my_turn

LOST = "Связь потеряна, подключаемся снова… Пока связи нет, ходы не отправляются."
BACK = "Связь восстановлена: стол показан как есть."
TIMED_OUT = "Время вышло: ход сделан за вас"
TURN_SECONDS = "15"  # the shortest timer: the turn runs out while the phone is offline
GRACE_TIMEOUT = 90.0  # seconds at most for the server to give the grace wait (a busy machine)


def open_timed_table_with_a_bot(page) -> int:
    page.goto("/tables/new/")
    page.select_option("select[name=players]", "2")
    page.select_option("select[name=bot_level]", "easy")
    page.select_option("select[name=turn_seconds]", TURN_SECONDS)
    page.check("input[name=visibility][value=public]")
    page.locator("main form.stacked-form button[type=submit]").click()
    page.wait_for_url("**/table/*/")
    table_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    page.locator("#table-state .t-seating-actions form[action$='/start/'] button").click()
    page.locator("#table-state .t-hand .t-card").first.wait_for()
    return table_id


def grace_used(db, game_id: int, seat: int) -> bool:
    rows = db._query("SELECT grace_used FROM games_gameseat WHERE game_id = ? AND number = ?", (game_id, seat))
    return bool(rows and rows[0][0])


def offline_marked(db, table_id: int, username: str) -> bool:
    rows = db._query(
        "SELECT s.offline_since FROM games_tableseat s JOIN auth_user u ON u.id = s.user_id "
        "WHERE s.table_id = ? AND u.username = ?",
        (table_id, username),
    )
    return bool(rows and rows[0][0])


def seat_moves(db, game_id: int, seat: int) -> list[tuple[str, str]]:
    return [(action, source) for number, action, source in db.moves(game_id) if number == seat]


@pytest.mark.parametrize("viewport", ["390x844", "360x740"])
def test_a_phone_that_loses_its_network_at_its_turn_says_so_sends_nothing_and_gets_its_grace_wait(
    browser, daphne_server, viewport
):
    db = daphne_server.db
    username = f"offline_{viewport.split('x')[0]}"
    phone_context = new_context(browser, daphne_server.url, viewport)
    watcher_context = new_context(browser, daphne_server.url, "390x844")
    try:
        phone = new_page(phone_context)
        sign_up(phone, username)
        table_id = open_timed_table_with_a_bot(phone)
        seat = int(phone.get_attribute("#table-state", "data-seat"))
        watcher = new_page(watcher_context)
        sign_up(watcher, f"watcher_{viewport.split('x')[0]}")
        watcher.goto(f"/table/{table_id}/")
        his_presence = watcher.locator(f'#table-state .t-seat[data-seat="{seat}"] .t-presence')
        his_presence.filter(has_text="в сети").wait_for()
        assert his_presence.get_attribute("data-presence") == "online"

        wait_for_my_turn(phone)
        game_id = int(phone.get_attribute("#table-state", "data-game"))
        before = seat_moves(db, game_id, seat)
        phone_context.set_offline(True)

        # The page says so and greys the hand.
        banner = phone.locator("#connection-banner")
        banner.wait_for(state="visible")
        assert banner.inner_text().strip() == LOST
        phone.locator("#table-live.offline").wait_for(state="attached")
        card = phone.locator("#table-state .t-hand .t-card.playable").last
        assert card.is_disabled()
        assert "grayscale" in card.evaluate("(el) => getComputedStyle(el).filter")
        # A tap on a card while offline: nothing is sent, now or later.
        phone.mouse.move(0, 0)
        tapped = card.get_attribute("data-card")
        box = card.bounding_box()
        phone.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

        # The server counts him gone: the others see «не в сети»; his turn runs out into the grace wait.
        watcher.locator(f'#table-state .t-seat[data-seat="{seat}"] .t-presence[data-presence="offline"]').wait_for()
        assert his_presence.inner_text().strip() == "не в сети"
        assert offline_marked(db, table_id, username)
        waited_until = time.monotonic() + GRACE_TIMEOUT
        while not grace_used(db, game_id, seat):
            assert time.monotonic() < waited_until, "his turn ran out offline and no grace wait came"
            time.sleep(0.5)
        assert seat_moves(db, game_id, seat) == before, "no timeout, and not the card tapped offline"

        phone_context.set_offline(False)
        banner.filter(has_text=BACK).wait_for()
        phone.locator("#table-live:not(.offline)").wait_for(state="attached")
        his_presence.filter(has_text="в сети").wait_for()
        assert his_presence.get_attribute("data-presence") == "online"
        assert TIMED_OUT not in phone.locator("#table-state").inner_text()
        assert phone.locator("#table-state.my-turn").count() == 1, "the grace wait is still his turn"
        assert phone.locator(f'#table-state .t-hand .t-card[data-card="{tapped}"]').count() == 1

        # His move now is the first of his since the network went (the tap was never sent).
        phone.locator(f'#table-state .t-hand .t-card.playable[data-card="{tapped}"]').click()
        if not phone.locator(f'#table-state .t-hand .t-card.playable[data-card="{tapped}"]').get_attribute(
            "data-action"
        ):
            phone.locator("#table-state .t-pairs .t-card.choosable").first.click()
        phone.locator(f'#table-state .t-hand .t-card[data-card="{tapped}"]').wait_for(state="detached")
        after = seat_moves(db, game_id, seat)
        assert len(after) == len(before) + 1 and after[-1][1] == "player", after
        assert not phone.js_errors and not watcher.js_errors, (phone.js_errors, watcher.js_errors)
    finally:
        phone_context.close()
        watcher_context.close()
