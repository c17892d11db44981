"""The end of a game on a phone (360x740 and 390x844, in Russian): with the page at the
top, the verdict, the places, the links to the record («Запись партии», «Повтор»,
«Проверить раздачу») and «Сыграть ещё» are all on the screen above the tab bar, none over
another, with no scrolling; «Сыграть ещё» deals the next game at once (bots agree).

A game of 6 seats (the longest list of places) is ended by resigning: the bots, and the
autopilot in the player's seat, play it out, or «Доиграть сейчас» ends it at once.
The boxes are measured as tests/browser/test_phone_layout.py measures the table."""

from __future__ import annotations

from tests.browser.test_phone_layout import new_context, new_page, open_table_with_bots, problems, sign_up

SEATS = 6
END_TIMEOUT = 120_000  # ms: bots and the autopilot playing a game out on a busy machine

MEASURE_END_JS = """() => {
  window.scrollTo(0, 0);
  const shown = (el) => el.getClientRects().length > 0 && el.checkVisibility({visibilityProperty: true});
  const items = [];
  const add = (group, name, el) => {
    if (!el || !shown(el)) return;
    const r = el.getBoundingClientRect();
    if (r.width && r.height) items.push({group, name, left: r.left, top: r.top, right: r.right, bottom: r.bottom});
  };
  const result = document.querySelector("#t-result .t-result");
  add("verdict", "the verdict", result && result.querySelector(".t-verdict"));
  add("places", "the places", result && result.querySelector(".t-places"));
  (result ? [...result.querySelectorAll(".t-result-links a")] : []).forEach((a, i) =>
    add("link " + i, "the link «" + a.textContent.trim() + "»", a));
  add("again", "the button «Сыграть ещё»", document.querySelector("#t-seating .t-btn-start"));
  const tabs = document.querySelector(".t-tabs");
  return {
    items,
    width: document.documentElement.clientWidth,
    height: window.innerHeight,
    tabBarTop: tabs && shown(tabs) ? tabs.getBoundingClientRect().top : null,
  };
}"""


def end_by_resigning(page) -> None:
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#table-state form.t-resign button").click()
    page.locator("#table-state .t-autopilot, #table-state.over").first.wait_for()
    finish = page.locator("#table-state .t-finish-form button")
    if finish.count():
        finish.click()
    page.locator("#table-state.over #t-result .t-result").wait_for(timeout=END_TIMEOUT)


def test_the_end_of_a_game_and_play_again_fit_a_phone_screen(browser, daphne_server):
    found = []
    for viewport in ("390x844", "360x740"):
        context = new_context(browser, daphne_server.url, viewport)
        try:
            page = new_page(context)
            sign_up(page, f"ender_{viewport}")
            open_table_with_bots(page, SEATS)
            end_by_resigning(page)
            page.locator("#t-seating .t-btn-start").wait_for()
            page.mouse.move(0, 0)
            measured = page.evaluate(MEASURE_END_JS)
            names = {item["name"] for item in measured["items"]}
            assert "the button «Сыграть ещё»" in names and "the link «Проверить раздачу»" in names, names
            found += [f"{viewport}: {problem}" for problem in problems(measured)]
            if found:
                page.screenshot(path=f"/tmp/durak-game-end-{viewport}.png")

            game = page.get_attribute("#table-state", "data-game")
            page.locator("#t-seating .t-btn-start").click()
            page.wait_for_function(
                "([g]) => { const s = document.getElementById('table-state');"
                " return s && s.dataset.game && s.dataset.game !== g && !s.classList.contains('over'); }",
                arg=[game],
            )
            page.locator("#table-state .t-hand .t-card").first.wait_for()
            assert "Вы согласились сыграть ещё" not in page.inner_text("body")
            assert not page.js_errors, page.js_errors
        finally:
            context.close()
    assert not found, "\n".join(found)
