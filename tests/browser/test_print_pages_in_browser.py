"""Issue 18, point 2 and the tests: the print pages in a real browser, on a phone and on A4.

A Swiss of eight players with Cyrillic names at tables of four, two rounds, is played on the
server's own database (`manage.py shell`, through the services, as tests/tournaments plays
its events). The pairings, the director's result slips and the standings with the
crosstable must fit a 390 px phone (nothing wider than the screen, every table and every
seat shown), and Chromium's print to PDF must give A4 pages with the names in the text and
without the on-screen bar of links. The archive and the hall of fame fit the phone too.
"""

from __future__ import annotations

import io
import re
import time

import pypdf

from tests.browser.test_table_in_browser import STEP_TIMEOUT, sign_up
from tests.browser.test_tournament_in_browser import manage_shell

PHONE = {"width": 390, "height": 844}
A4_POINTS = (595.28, 841.89)
NAMES = ["Анна", "Борис", "Вера", "Глеб", "Дарья", "Егор", "Жанна", "Зоя"]
EVENT_NAME = "Кубок пятницы"
# The screen-only bar of print/base.html, as it reads in Russian.
BAR_LINKS = ["К странице турнира", "Скачать PDF"]

SETUP = f"""
from django.contrib.auth import get_user_model
from tests.tournaments.helpers import make_event, play_round
from tests.notices.helpers import start
from tournaments import services, tasks
User = get_user_model()
users = [User.objects.create_user(username=name) for name in {NAMES!r}]
event = make_event(name={EVENT_NAME!r}, rounds=2, table_size=4)
for user in users:
    services.do_register(tournament_id=event.pk, user=user)
start(event)
play_round(event, 1)
tasks.sweep_events()
print("EVENT", event.pk)
"""

FINISH = """
from tournaments.models import Tournament
from tests.tournaments.helpers import play_round
event = Tournament.objects.get(pk={pk})
play_round(event, 2)
event.refresh_from_db()
print("STATUS", event.status)
"""


def phone_page(browser, base_url: str):
    context = browser.new_context(locale="ru-RU", base_url=base_url, viewport=PHONE)
    context.set_default_timeout(STEP_TIMEOUT)
    page = context.new_page()
    page.js_errors = []
    page.on("pageerror", lambda error: page.js_errors.append(str(error)))
    return context, page


def no_sideways_scroll(page) -> None:
    width, inner = page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{page.url} is {width} px wide in a {inner} px window"


def all_visible(page, selector: str, expected: int) -> None:
    items = page.locator(selector)
    assert items.count() == expected, f"{page.url}: {items.count()} of {selector}, expected {expected}"
    for i in range(expected):
        assert items.nth(i).is_visible(), f"{page.url}: {selector} #{i + 1} is hidden"


def names_on_screen(page, cells: str, names) -> None:
    """Each name is shown whole inside the phone's width (not cut off or scrolled away)."""
    inner = page.evaluate("window.innerWidth")
    shown = {}
    for i in range(page.locator(cells).count()):
        cell = page.locator(cells).nth(i)
        box = cell.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= inner, f"{page.url}: cell {i + 1} is off screen"
        shown[cell.inner_text().strip()] = True
    missing = [name for name in names if not any(name in text for text in shown)]
    assert not missing, f"{page.url} does not show {missing}"


def printed(page) -> tuple[list, str]:
    """Chromium's print of the page as A4: the page boxes and the text of the PDF."""
    page.emulate_media(media="print")
    try:
        data = page.pdf(format="A4", print_background=True)
    finally:
        page.emulate_media(media="screen")
    reader = pypdf.PdfReader(io.BytesIO(data))
    boxes = [(float(p.mediabox.width), float(p.mediabox.height)) for p in reader.pages]
    text = "\n".join(p.extract_text() or "" for p in reader.pages)
    return boxes, text


def is_a4(box, landscape: bool) -> bool:
    width, height = box
    want = A4_POINTS[::-1] if landscape else A4_POINTS
    return abs(width - want[0]) <= 1 and abs(height - want[1]) <= 1


def check_paper(page, names, crosstable: bool = False) -> str:
    """A4 portrait pages; the crosstable, print.css's `@page crosstable`, on A4 landscape."""
    boxes, text = printed(page)
    assert boxes, f"{page.url} printed no page"
    for box in boxes:
        assert is_a4(box, False) or (crosstable and is_a4(box, True)), (page.url, box)
    if crosstable:
        assert any(is_a4(box, True) for box in boxes), f"the crosstable of {page.url} is not on landscape A4"
    flat = re.sub(r"\s+", " ", text)
    for name in names:
        assert name in flat, f"{name} is not in the PDF of {page.url}:\n{text[:2000]}"
    for link in BAR_LINKS:
        assert link in page.locator(".print-bar").inner_text(), "the bar is on the screen"
        assert link not in flat, f"the on-screen bar ({link}) is printed on {page.url}"
    return flat


def test_issue18_print_pages_fit_a_phone_and_print_on_a4(browser, daphne_server):
    timings = {}
    started = time.monotonic()
    out = manage_shell(daphne_server, SETUP)
    event_id = int(re.search(r"EVENT (\d+)", out).group(1))
    timings["two rounds set up"] = time.monotonic() - started

    context, page = phone_page(browser, daphne_server.url)
    try:
        sign_up(page, "dora")
        manage_shell(
            daphne_server,
            "from django.contrib.auth.models import Group, User; "
            "User.objects.get(username='dora').groups.add(Group.objects.get(name='Tournament directors'))",
        )
        mark = time.monotonic()

        # Round 2 is on the wall: two tables of four.
        page.goto(f"/tournaments/{event_id}/print/pairings/")
        assert "Тур 2" in page.locator(".sheet-line").inner_text()
        no_sideways_scroll(page)
        all_visible(page, ".sheet-table", 2)
        all_visible(page, ".sheet-table tbody tr", 8)
        names_on_screen(page, ".sheet-table tbody td:nth-child(2)", NAMES)
        assert page.locator(".sheet-qr img").is_visible()
        check_paper(page, NAMES + [EVENT_NAME])

        page.goto(f"/tournaments/{event_id}/print/slips/")
        assert page.locator(".slip").count() == 2, "the director's slips, one per table"
        no_sideways_scroll(page)
        all_visible(page, ".slip", 2)
        all_visible(page, ".slip tbody tr", 8)
        names_on_screen(page, ".slip tbody td:nth-child(2)", NAMES)
        check_paper(page, NAMES)

        page.goto(f"/tournaments/{event_id}/print/standings/")
        no_sideways_scroll(page)
        all_visible(page, ".crosstable-sheet tbody tr", 8)
        names_on_screen(page, ".crosstable-sheet tbody th", NAMES)
        check_paper(page, NAMES, crosstable=True)
        timings["three sheets mid-event"] = time.monotonic() - mark

        mark = time.monotonic()
        out = manage_shell(daphne_server, FINISH.format(pk=event_id))
        assert "STATUS finished" in out, out
        timings["round 2 played"] = time.monotonic() - mark

        mark = time.monotonic()
        page.goto(f"/tournaments/{event_id}/print/standings/")
        no_sideways_scroll(page)
        all_visible(page, ".crosstable-sheet tbody tr", 8)
        assert page.locator(".crosstable-sheet thead th", has_text="Тур 2").count() == 1
        check_paper(page, NAMES, crosstable=True)

        page.goto("/tournaments/archive/")
        no_sideways_scroll(page)
        assert page.get_by_text(EVENT_NAME).first.is_visible(), "the finished event is in the archive"
        page.goto("/tournaments/hall-of-fame/")
        no_sideways_scroll(page)
        timings["final sheet, archive, hall of fame"] = time.monotonic() - mark
        assert page.js_errors == []
    finally:
        context.close()
    print("timings:", {k: round(v, 1) for k, v in timings.items()})


PAIRS = [("Ирина", "Кирилл"), ("Лариса", "Марк"), ("Нина", "Олег"), ("Полина", "Роман")]
PAIR_SETUP = f"""
from django.contrib.auth import get_user_model
from tests.tournaments.helpers import make_event
from tests.notices.helpers import start
from tournaments import services
from tournaments.models import Tournament
User = get_user_model()
event = make_event(name="Парный вечер", kind=Tournament.Kind.PAIRS, rounds=1, table_size=4)
for one, two in {PAIRS!r}:
    a, b = User.objects.create_user(username=one), User.objects.create_user(username=two)
    pair = services.do_invite_partner(user=a, partner=b)
    services.do_answer_invitation(pair_id=pair.pk, user=b, accept=True)
    services.do_register(tournament_id=event.pk, user=a, pair_id=pair.pk)
start(event)
print("EVENT", event.pk)
"""


def test_issue18_pair_pairings_show_partners_on_a_phone_and_on_a4(browser, daphne_server):
    started = time.monotonic()
    event_id = int(re.search(r"EVENT (\d+)", manage_shell(daphne_server, PAIR_SETUP)).group(1))
    context, page = phone_page(browser, daphne_server.url)
    try:
        page.goto(f"/tournaments/{event_id}/print/pairings/")
        no_sideways_scroll(page)
        all_visible(page, ".sheet-table", 2)
        all_visible(page, ".sheet-table tbody tr", 8)
        everyone = [name for pair in PAIRS for name in pair]
        names_on_screen(page, ".sheet-table tbody td:nth-child(2)", everyone)
        names_on_screen(page, ".sheet-table tbody td:nth-child(3)", everyone)
        for row in page.locator(".sheet-table tbody tr").all():
            player, partner = (row.locator("td").nth(i).inner_text().strip() for i in (1, 2))
            assert (player, partner) in PAIRS or (partner, player) in PAIRS, (player, partner)
        check_paper(page, everyone)
        assert page.js_errors == []
    finally:
        context.close()
    print("timings: pair event", round(time.monotonic() - started, 1))
