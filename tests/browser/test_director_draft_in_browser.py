"""The director's draft of the next round in a real browser, on a 390 px phone and a desktop
(issue 15, "Tests": "Playwright: the director's draft preview and edit on a 390 px phone and a
desktop"; "What was seen" 6: the seating could not be previewed or edited by name, and exact
rematches were accepted with no warning).

A Swiss of five at tables of two has played round 1 (set up by `manage.py shell` against the
server's own database, with the helpers of tests/tournaments, as tests/tournaments/test_draft.py
does). The director opens the director page, sees the round-2 draft by name, seats round 2's
bye by name in place of the entrant next to his round-1 opponent, saves, sees the recomputed
cost and the rematch warning, publishes, and the published seating in the database is the
edited one. On the phone (touch) the draft's selects and buttons fit the 390 px width and can
be tapped; on both, the strict Content-Security-Policy reports no violation in the console.
Texts are compared in Russian.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.test_tournament_in_browser import manage_shell

PASSWORD = "Koloda-36-karty"
DIRECTOR = "direktor"
STEP_TIMEOUT = 20_000  # ms
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}

SETUP = """
import json
from datetime import timedelta
from django.contrib.auth.models import Group, User
from django.utils import timezone
from tests.tournaments.helpers import make_event, make_users, play_round
from tournaments import services, tasks
from tournaments.models import Tournament
director, made = User.objects.get_or_create(username={director!r}, defaults={{"is_staff": True}})
if made:
    director.set_password({password!r})
    director.save()
    director.groups.add(Group.objects.get(name="Tournament directors"))
event = make_event(name={name!r}, table_size=2, rounds=3, pause_between_rounds=timedelta(minutes=10))
for user in make_users(5, prefix={prefix!r}):
    services.do_register(tournament_id=event.pk, user=user)
Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
tasks.sweep_events()
play_round(event, 1)
print(json.dumps(event.pk))
"""

STATE = """
import json
from tournaments import selectors
from tournaments.models import Round, Tournament
event = Tournament.objects.get(pk={event_id})
def tables(number):
    round_ = Round.objects.get(tournament=event, number=number)
    return {{
        "tables": [list(rt.entrants) for rt in round_.tables.order_by("number")],
        "byes": list(round_.byes),
        "published": round_.published_at is not None,
        "by_director": round_.seated_by_director,
    }}
draft = selectors.draft_view(event) or {{}}
print(json.dumps({{
    "names": {{str(k): v for k, v in selectors.entrant_names(event).items()}},
    "one": tables(1),
    "two": tables(2),
    "repeats": draft.get("repeats"),
    "spread": str(draft.get("spread")),
}}))
"""


# For the failure message: the elements that widen the page (sticking out on the right, in no
# box that scrolls or clips sideways), by tag, id, classes and text.
WIDER_THAN_THE_PHONE = """
[...document.querySelectorAll("body *")]
  .filter((el) => el.getBoundingClientRect().right > 390.5)
  .filter((el) => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") return false;
    }
    return true;
  })
  .slice(0, 8)
  .map((el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${[...el.classList].join(".")}`
    + ` in ${el.parentElement.tagName.toLowerCase()}.${[...el.parentElement.classList].join(".")}`
    + ` ${Math.round(el.getBoundingClientRect().right)}px ${JSON.stringify(el.innerText.slice(0, 40))}`)
"""


def state(server, event_id: int) -> dict:
    return json.loads(manage_shell(server, STATE.format(event_id=event_id)).strip().splitlines()[-1])


def a_rematch_by_one_seat(now: dict) -> tuple[int, int, int, int]:
    """(table, seat, entrant, his round-1 opponent): round 2's bye put at the seat next to the
    entrant he met in round 1 (whoever sat there sits out instead)."""
    met = {}
    for table in now["one"]["tables"]:
        for pk in table:
            met[pk] = {other for other in table if other != pk}
    for bye in now["two"]["byes"]:
        for t, table in enumerate(now["two"]["tables"], start=1):
            for s, pk in enumerate(table, start=1):
                others = [other for other in table if other != pk]
                if others and met.get(bye, set()) & set(others):
                    return t, s, bye, others[0]
    raise AssertionError(f"no single seat makes a rematch: {now}")


def new_director_page(browser, base_url: str, device: dict):
    context = browser.new_context(locale="ru-RU", base_url=base_url, **device)
    context.set_default_timeout(STEP_TIMEOUT)
    context.add_cookies([{"name": "django_language", "value": "ru", "url": base_url}])
    page = context.new_page()
    page.js_errors = []
    page.console_errors = []
    page.on("pageerror", lambda error: page.js_errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
    page.goto("/login/")
    form = page.locator("main form.stacked-form")
    form.locator("input[name=username]").fill(DIRECTOR)
    form.locator("input[name=password]").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    page.wait_for_url(lambda url: "/login/" not in url)
    return context, page


def no_csp_violation(page) -> None:
    violations = [text for text in page.console_errors if "Content Security Policy" in text]
    assert not violations, violations
    assert not page.js_errors, page.js_errors


def fits_and_tappable(page, locator) -> None:
    """No sideways scrolling at 390 px; each control, scrolled into view, lies inside the viewport."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{page.url} is {width} px wide at 390 px: {page.evaluate(WIDER_THAN_THE_PHONE)}"
    viewport = page.viewport_size
    for i in range(locator.count()):
        control = locator.nth(i)
        control.evaluate("(el) => el.scrollIntoView({block: 'center', inline: 'nearest'})")
        box = control.bounding_box()
        assert box is not None, f"{control} is not rendered"
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], f"{control} sticks out: {box}"
        assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], f"{control} is off screen: {box}"
        assert box["width"] >= 24 and box["height"] >= 24, f"{control} is too small to tap: {box}"


def press(page, button, touch: bool) -> None:
    button.scroll_into_view_if_needed()
    if touch:
        button.tap()
    else:
        button.click()


@pytest.mark.parametrize("device_name", ["phone", "desktop"])
def test_the_director_previews_edits_and_publishes_the_draft(browser, daphne_server, device_name):
    device = PHONE if device_name == "phone" else DESKTOP
    touch = device is PHONE
    event_id = json.loads(
        manage_shell(
            daphne_server,
            SETUP.format(
                director=DIRECTOR, password=PASSWORD, name=f"Швейцарец ({device_name})", prefix=f"{device_name[0]}p"
            ),
        )
        .strip()
        .splitlines()[-1]
    )
    before = state(daphne_server, event_id)
    names = {int(pk): name for pk, name in before["names"].items()}
    assert len(before["two"]["tables"]) == 2 and len(before["two"]["byes"]) == 1, before
    assert not before["two"]["published"]
    table, seat, bye, opponent = a_rematch_by_one_seat(before)
    replaced = before["two"]["tables"][table - 1][seat - 1]

    context, page = new_director_page(browser, daphne_server.url, device)
    try:
        page.goto(f"/tournaments/{event_id}/direct/")
        draft = page.locator("#draft")
        assert "Рассадка следующего тура" in draft.inner_text()
        assert "черновик: игроки его пока не видят" in draft.inner_text()
        for t, seated in enumerate(before["two"]["tables"], start=1):
            for s, pk in enumerate(seated, start=1):
                select = draft.locator(f"select[name=seat-{t}-{s}]")
                assert select.locator("option:checked").inner_text() == names[pk], "each seat by name"
        assert f"{names[before['two']['byes'][0]]}: пропуск тура" in draft.inner_text()
        if touch:
            fits_and_tappable(page, draft.locator("select, button"))
        no_csp_violation(page)

        draft.locator(f"select[name=seat-{table}-{seat}]").select_option(label=names[bye])
        # The form posts to the page it is on: wait for the load, not for a URL it already has.
        with page.expect_navigation():
            press(page, draft.locator("form.draft-form button"), touch)
        draft = page.locator("#draft")
        draft.locator(".draft-rematches").wait_for()

        saved = state(daphne_server, event_id)
        edited = [list(t) for t in before["two"]["tables"]]
        edited[table - 1][seat - 1] = bye
        assert saved["two"]["tables"] == edited and saved["two"]["byes"] == [replaced]
        assert saved["two"]["by_director"] and not saved["two"]["published"]
        assert saved["repeats"] >= 1
        text = page.locator("main").inner_text()
        assert f"Черновик сохранён: повторных пар {saved['repeats']}, разброс очков {saved['spread']}." in text
        assert f"Повторных пар: {saved['repeats']} · разброс очков: {saved['spread']}" in draft.inner_text()
        pair = {names[bye], names[opponent]}
        warnings = [
            line
            for line in text.splitlines()
            if line.startswith("Повторная встреча:") and line.endswith("уже сидели за одним столом.")
        ]
        assert any(
            set(line[len("Повторная встреча: ") :].split(" уже")[0].split(" и ")) == pair for line in warnings
        ), warnings
        assert f"{names[replaced]}: пропуск тура" in draft.inner_text(), "the flags follow the edit"
        if touch:
            fits_and_tappable(page, draft.locator("select, button"))
        no_csp_violation(page)

        with page.expect_navigation():
            press(page, draft.locator("button[name=action][value=publish]"), touch)
        assert "Рассадка опубликована: игроки её видят." in page.locator("main").inner_text()
        assert page.locator("#draft .chip.ok").inner_text() == "опубликована"
        published = state(daphne_server, event_id)
        assert published["two"]["published"]
        assert published["two"]["tables"] == edited and published["two"]["byes"] == [replaced]
        if touch:
            fits_and_tappable(page, page.locator("#draft select, #draft button"))
        no_csp_violation(page)
        page.screenshot(path=f"/tmp/durak-browser-draft-{device_name}.png", full_page=True)
    finally:
        context.close()
