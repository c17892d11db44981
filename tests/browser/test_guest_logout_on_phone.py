"""Issue 17, what was seen 6, on a phone: a guest's «Выйти» opens its warning (his games
are lost unless he signs up) inside the site header, which wraps on a phone and, at a
table, scrolls sideways and clips whatever sticks out of it. The warning must show whole.

A guest (the lobby's quick game) opens the warning at 360x740 and 390x844 on the table
page (the header that scrolls) and on the lobby (the header that wraps). The test fails
when the warning, its text, «Зарегистрироваться и сохранить» or «Выйти и потерять их»
is off the screen, has no box, has its text running out of its box, or is cut off: a
point near each corner and the centre of each must hit that element itself, not the page
behind it (an overflow clip shows what lies under the clipped part). «Выйти» itself must
stay uncovered, and a second tap on it closes the warning.
"""

from __future__ import annotations

import re

from tests.browser.test_phone_layout import new_context, new_page

PHONES = ("360x740", "390x844")
WARNING = "Это гостевой аккаунт: после выхода его партии и рейтинг пропадут навсегда."

MEASURE_JS = """() => {
  const warning = document.querySelector(".guest-logout-warning");
  const summary = document.querySelector(".guest-logout > summary");
  const width = document.documentElement.clientWidth;
  const height = window.innerHeight;
  const found = [];
  const named = (el) => (el === warning ? "the warning"
    : `${el.tagName.toLowerCase()} «${el.textContent.trim().slice(0, 40)}»`);
  const fmt = (r) => `[x ${r.left.toFixed(0)}-${r.right.toFixed(0)}, y ${r.top.toFixed(0)}-${r.bottom.toFixed(0)}]`;
  const parts = [warning, ...warning.querySelectorAll("p, a, button")];
  for (const el of parts) {
    const r = el.getBoundingClientRect();
    const name = named(el);
    if (!r.width || !r.height) { found.push(`${name} has no box`); continue; }
    if (r.left < -0.5 || r.top < -0.5 || r.right > width + 0.5 || r.bottom > height + 0.5) {
      found.push(`${name} is off the ${width}x${height} screen: ${fmt(r)}`);
      continue;
    }
    if (el.scrollWidth > el.clientWidth + 1) {
      found.push(`${name}'s text runs out of its box: ${el.scrollWidth} > ${el.clientWidth}`);
    }
    // (a rounded corner is not the element's: the corner points lie inside the rounding)
    const style = getComputedStyle(el);
    const radius = Math.max(...["TopLeft", "TopRight", "BottomLeft", "BottomRight"]
      .map((corner) => parseFloat(style[`border${corner}Radius`]) || 0));
    const inset = Math.min(radius + 2, r.width / 2, r.height / 2);
    const points = [
      [r.left + inset, r.top + inset], [r.right - inset, r.top + inset],
      [r.left + inset, r.bottom - inset], [r.right - inset, r.bottom - inset],
      [(r.left + r.right) / 2, (r.top + r.bottom) / 2],
    ];
    for (const [x, y] of points) {
      const hit = document.elementFromPoint(x, y);
      if (!hit || !el.contains(hit)) {
        const what = hit ? hit.outerHTML.slice(0, 60) : "nothing";
        found.push(`${name} ${fmt(r)} is cut off at (${x.toFixed(0)}, ${y.toFixed(0)}): ${what} shows there`);
        break;
      }
    }
  }
  const s = summary.getBoundingClientRect();
  const onSummary = document.elementFromPoint((s.left + s.right) / 2, (s.top + s.bottom) / 2);
  if (!onSummary || !summary.contains(onSummary)) {
    found.push(`«Выйти» ${fmt(s)} is covered: it cannot close the warning`);
  }
  return {found, text: warning.innerText};
}"""


def open_warning(page) -> dict:
    page.mouse.move(0, 0)
    page.locator(".guest-logout > summary").click()
    page.locator(".guest-logout-warning").wait_for(state="visible")
    return page.evaluate(MEASURE_JS)


def test_issue17_a_guests_log_out_warning_shows_whole_on_a_phone(browser, daphne_server):
    found: list[str] = []
    first = new_context(browser, daphne_server.url, PHONES[0])
    contexts = [first]
    try:
        page = new_page(first)
        page.goto("/")
        page.locator("form.quick-game button[type=submit]").click()  # the guest's quick game
        page.wait_for_url(re.compile(r"/table/\d+/$"))
        table_path = re.search(r"/table/\d+/$", page.url).group(0)
        session = first.storage_state()
        pages = {PHONES[0]: page}
        for viewport in PHONES[1:]:
            contexts.append(new_context(browser, daphne_server.url, viewport, session))
            pages[viewport] = new_page(contexts[-1])
        for viewport, page in pages.items():
            for where, path in (("the table", table_path), ("the lobby", "/")):
                page.goto(path)
                if path == table_path:
                    page.wait_for_selector("#table-state[data-game]:not([data-game=''])")
                measured = open_warning(page)
                assert WARNING in measured["text"], measured["text"]
                label = f"{viewport}, {where}"
                if measured["found"]:
                    page.screenshot(path=f"/tmp/durak-guest-logout-{viewport}-{where.split()[-1]}.png")
                found.extend(f"{label}: {issue}" for issue in measured["found"])
                page.locator(".guest-logout > summary").click()  # the second tap closes it
                page.locator(".guest-logout-warning").wait_for(state="hidden")
            assert not page.js_errors, (viewport, page.js_errors)
    finally:
        for context in contexts:
            context.close()
    assert not found, "\n".join(found)
