"""Issue #18, point 2 ("Paper"): the pairings by table, a result slip per table and the
standings with a crosstable, as print pages and as PDF (its text read back with pypdf), the
QR code of the event page on the pairings, and who may print what."""

import io
import re
from pathlib import Path

import pytest
import segno
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.utils import timezone
from pypdf import PdfReader
from pypdf.generic import ContentStream

from games.models import Game
from tournaments import paper, selectors, services, tasks
from tournaments.models import Pair, Result, Round, RoundTable, Tournament

from .helpers import make_event, make_users, play_round

pytestmark = pytest.mark.django_db

# Cyrillic with ё and й, which a font without Cyrillic glyphs would lose.
NAMES = ["Алёна", "Борис", "Вера", "Глеб", "Дарья", "Ефим", "Жанна", "Йосиф"]


def started_event(names=NAMES, **kw) -> Tournament:
    users = [get_user_model().objects.create_user(username=name) for name in names]
    event = make_event(rounds=2, table_size=4, **kw)
    for user in users:
        services.do_register(tournament_id=event.pk, user=user)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now())
    services.do_advance_event(tournament_id=event.pk)
    return event


def pdf_reader(response) -> PdfReader:
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    return PdfReader(io.BytesIO(response.content))


def pdf_lines(response) -> list[str]:
    text = "\n".join(page.extract_text() for page in pdf_reader(response).pages)
    return [line.strip() for line in text.splitlines() if line.strip()]


def seating(event: Tournament, number: int) -> list[tuple[int, list[str]]]:
    names = selectors.entrant_names(event)
    tables = RoundTable.objects.filter(round__tournament=event, round__number=number).order_by("number")
    return [(rt.number, [names[pk] for pk in rt.entrants]) for rt in tables]


def test_issue18_pairings_pdf_lists_every_table_with_its_seats_in_order(client):
    event = started_event()
    tables = seating(event, 1)
    assert len(tables) == 2
    lines = pdf_lines(client.get(f"/tournaments/{event.pk}/print/pairings.pdf"))
    assert "Рассадка" in lines and event.name in lines
    assert "Тур 1 · Подкидной · швейцарская система · личное" in lines
    for number, names in tables:
        at = lines.index(f"Стол {number}")
        # Each seat a row: its number, then the name as it is written (Cyrillic intact).
        for seat, name in enumerate(names, 1):
            assert lines[at + 3 + 2 * (seat - 1) : at + 5 + 2 * (seat - 1)] == [str(seat), name]


def test_issue18_pairings_page_shows_every_table_and_seat(client):
    event = started_event()
    page = client.get(f"/tournaments/{event.pk}/print/pairings/").content.decode()
    assert 'href="/static/css/print.css"' in page and "topbar" not in page, "a sheet, not a site page"
    for number, names in seating(event, 1):
        section = page.split(f"<h2>Стол {number}</h2>", 1)[1].split("</section>", 1)[0]
        rows = re.findall(r'<tr><td class="num">(\d+)</td><td>([^<]+)</td></tr>', section)
        assert rows == [(str(seat), name) for seat, name in enumerate(names, 1)]


def qr_squares(reader: PdfReader, module: float) -> set[tuple[int, int]]:
    """(row, column) of every square of the QR code's size drawn on the first page."""
    squares = []
    content = ContentStream(reader.pages[0].get_contents(), reader)
    for operands, operator in content.operations:
        if operator == b"re":
            x, y, w, h = (float(v) for v in operands)
            if abs(w - module) < 1e-3 and abs(h - module) < 1e-3:
                squares.append((x, y))
    left, top = min(x for x, _y in squares), max(y for _x, y in squares)
    return {(round((top - y) / module), round((x - left) / module)) for x, y in squares}


def test_issue18_the_qr_code_opens_the_event_page(client):
    event = started_event()
    url = f"http://testserver/tournaments/{event.pk}/"
    code = segno.make(url, error="m")
    page = client.get(f"/tournaments/{event.pk}/print/pairings/").content.decode()
    assert f'<img src="{code.svg_data_uri(**paper.QR_SVG)}"' in page and url in page
    reader = pdf_reader(client.get(f"/tournaments/{event.pk}/print/pairings.pdf"))
    # The squares drawn on the PDF are the dark modules of the code made from the event's URL.
    module = paper.QrFlowable(url).width / (len(code.matrix) + 8)
    dark = {(r, c) for r, row in enumerate(code.matrix) for c, value in enumerate(row) if value}
    assert qr_squares(reader, module) == dark
    links = [a.get_object()["/A"]["/URI"] for a in reader.pages[0]["/Annots"]]
    assert links == [url]


def test_issue18_a_result_slip_per_table_for_the_director_only(client, director):
    event = started_event()
    tables = seating(event, 1)
    slips, slips_pdf = f"/tournaments/{event.pk}/print/slips/", f"/tournaments/{event.pk}/print/slips.pdf"
    assert client.get(slips).status_code == 302 and client.get(slips_pdf).status_code == 302  # to the login
    client.force_login(get_user_model().objects.get(username=NAMES[0]))
    assert client.get(slips).status_code == 403 and client.get(slips_pdf).status_code == 403
    client.force_login(director)
    page = client.get(slips).content.decode()
    assert page.count('<section class="slip">') == len(tables)
    assert page.count('<td class="box"></td>') == len(NAMES) * event.games_per_round
    lines = pdf_lines(client.get(slips_pdf))
    assert lines.count("Бланк результата") == len(tables)
    assert lines.count("Подпись судьи: ______________________") == len(tables)
    assert lines.count(f"{event.name} · Тур 1 · Подкидной · швейцарская система · личное") == len(tables)
    for number, names in tables:
        at = lines.index(f"Стол {number}")
        seats = [line for line in lines[at:] if line in NAMES][: len(names)]
        assert seats == names


def test_issue18_standings_with_the_opponents_met_and_the_places_taken(client):
    event = started_event()
    play_round(event, 1)
    tasks.sweep_events()
    play_round(event, 2)
    event.refresh_from_db()
    rows = selectors.standings_table(event)
    # Players are numbered by start number, as the CSV, the TRF text and the site's crosstable do.
    line = selectors.start_numbers(event)
    expected = {}
    for row in rows:
        cells = []
        for number in (1, 2):
            tables = RoundTable.objects.filter(round__tournament=event, round__number=number)
            (rt,) = [rt for rt in tables if row["entrant"] in rt.entrants]
            result = Result.objects.get(round__tournament=event, round__number=number, entrant_id=row["entrant"])
            opponents = sorted(line[pk] for pk in rt.entrants if pk != row["entrant"])
            points = f"{result.points:g}".replace(".", ",")
            cells += [
                f"стол {rt.number} · место {result.place}",
                f"{points} оч.",
                "против " + ", ".join(map(str, opponents)),
            ]
        expected[row["name"]] = cells
    lines = pdf_lines(client.get(f"/tournaments/{event.pk}/print/standings.pdf"))
    for row in rows:
        at = lines.index(row["name"])
        assert lines[at - 2 : at] == [str(line[row["entrant"]]), str(row["rank"])]
        assert lines[at + 1 : at + 8] == [*expected[row["name"]], f"{row['points']:g}".replace(".", ",")]
    page = client.get(f"/tournaments/{event.pk}/print/standings/").content.decode()
    for name, cells in expected.items():
        row_html = page.split(f'<th scope="row">{name}</th>', 1)[1].split("</tr>", 1)[0]
        assert re.findall(r"<span>([^<]+)</span>", row_html) == cells


def test_the_printed_standings_headers_keep_every_word_whole(client):
    """Seen: the PDF header «Место» wrapped to «Мест» / «о», the tie-breaks' names mid-word."""
    event = started_event()
    play_round(event, 1)
    lines = pdf_lines(client.get(f"/tournaments/{event.pk}/print/standings.pdf"))
    words = {word for line in lines for word in line.split()}
    headers = ["№", "Место", "Имя", "Тур 1", "Очки", *[str(m.header) for m in selectors.tiebreak_columns(event)]]
    for header in headers:
        for word in header.split():
            assert word in words, f"{word!r} of {header!r} is broken across lines"


def test_issue18_a_draft_event_is_printed_for_its_directors_only(client, director):
    event = make_event(status=Tournament.Status.DRAFT)
    urls = [f"/tournaments/{event.pk}/print/{name}" for name in ("pairings/", "pairings.pdf", "standings/")]
    urls.append(f"/tournaments/{event.pk}/print/standings.pdf")
    assert [client.get(url).status_code for url in urls] == [404] * 4
    client.force_login(director)
    assert [client.get(url).status_code for url in urls] == [200] * 4
    assert "Рассадки ещё нет: ни один тур не составлен." in pdf_lines(client.get(urls[1]))


def test_issue18_an_unpublished_seating_is_printed_for_the_director_only(client, director):
    event = started_event()
    play_round(event, 1)
    round_ = Round.objects.get(tournament=event, number=2)
    assert round_.status == Round.Status.SCHEDULED and round_.published_at is None
    tables = seating(event, 2)
    assert tables, "the next round's draft is seated"
    page = client.get(f"/tournaments/{event.pk}/print/pairings/").content.decode()
    assert "Рассадка этого тура ещё не опубликована." in page and "<h2>Стол" not in page
    assert "Рассадка этого тура ещё не опубликована." in pdf_lines(
        client.get(f"/tournaments/{event.pk}/print/pairings.pdf")
    )
    standings = client.get(f"/tournaments/{event.pk}/print/standings/").content.decode()
    for name in NAMES:  # nor do the standings tell the draft's tables: round 1's cell only
        row_html = standings.split(f'<th scope="row">{name}</th>', 1)[1].split("</tr>", 1)[0]
        assert len(re.findall(r"<span>([^<]+)</span>", row_html)) == 3
    client.force_login(director)
    lines = pdf_lines(client.get(f"/tournaments/{event.pk}/print/pairings.pdf"))
    assert "Черновик: игрокам ещё не опубликован." in lines
    assert all(f"Стол {number}" in lines for number, _names in tables)


def test_issue18_a_pair_event_prints_the_seats_as_the_game_seats_them_with_partners(client):
    users = make_users(4, prefix="Пара")
    pairs = []
    for first, second in ((users[0], users[1]), (users[2], users[3])):
        pair = services.do_invite_partner(user=first, partner=second)
        services.do_answer_invitation(pair_id=pair.pk, user=second, accept=True)
        pairs.append(Pair.objects.get(pk=pair.pk))
    event = make_event(kind=Tournament.Kind.PAIRS, table_size=4, rounds=1)
    for pair in pairs:
        services.do_register(tournament_id=event.pk, user=pair.player_one, pair_id=pair.pk)
    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now())
    services.do_advance_event(tournament_id=event.pk)
    rt = RoundTable.objects.get(round__tournament=event)
    game = Game.objects.filter(table_id=rt.table_id).latest("number")
    seated = [seat.user.username for seat in game.seats.order_by("number").select_related("user")]
    partner = {p.player_one.username: p.player_two.username for p in pairs}
    partner.update({two: one for one, two in partner.items()})
    lines = pdf_lines(client.get(f"/tournaments/{event.pk}/print/pairings.pdf"))
    at = lines.index("Стол 1")
    assert lines[at + 1 : at + 4] == ["№ места", "Игрок", "Партнёр"]
    for seat, name in enumerate(seated, 1):
        assert lines[at + 1 + 3 * seat : at + 4 + 3 * seat] == [str(seat), name, partner[name]]
    page = client.get(f"/tournaments/{event.pk}/print/pairings/").content.decode()
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td>([^<]+)</td><td>([^<]+)</td></tr>', page)
    assert rows == [(str(seat), name, partner[name]) for seat, name in enumerate(seated, 1)]


def test_issue18_a_round_not_there_is_not_found(client):
    event = started_event()
    assert client.get(f"/tournaments/{event.pk}/print/pairings/?round=1").status_code == 200
    assert client.get(f"/tournaments/{event.pk}/print/pairings/?round=7").status_code == 404
    assert client.get(f"/tournaments/{event.pk}/print/pairings.pdf?round=abc").status_code == 404


def visible_text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_issue18_the_event_and_director_pages_link_the_sheets(client, director):
    event = make_event()
    text = visible_text(client.get(f"/tournaments/{event.pk}/").content.decode())
    assert "Печать: рассадка, таблица" in text, "the slips are the director's"
    client.force_login(director)
    for url in (f"/tournaments/{event.pk}/", f"/tournaments/{event.pk}/direct/"):
        html = client.get(url).content.decode()
        assert "Печать: рассадка, бланки, таблица" in visible_text(html)
        for sheet in ("pairings", "slips", "standings"):
            assert f'href="/tournaments/{event.pk}/print/{sheet}/"' in html


def test_issue18_the_print_style_fits_a4_and_a_phone():
    css = (Path(settings.BASE_DIR) / "static" / "css" / "print.css").read_text()
    assert "@page { size: A4;" in css and "@media (max-width: 480px)" in css
    on_paper = css.split("@media print {", 1)[1]
    assert ".print-bar { display: none; }" in on_paper, "no navigation on paper"


def test_issue18_a_long_evening_still_fits_the_paper():
    # 12 games a round and 12 rounds (the forms allow 20 and 100): the slip turns landscape with
    # narrower boxes, the crosstable goes in blocks of rounds, each with the names again.
    event = make_event(rounds=12, games_per_round=12)
    seats = [{"seat": i, "name": name, "team": "", "partner": ""} for i, name in enumerate(NAMES[:4], 1)]
    slips = {"event": event, "round": None, "tables": [{"number": 1, "seats": seats}], "games": list(range(1, 13))}
    response = HttpResponse(paper.slips_pdf(slips), content_type="application/pdf")
    reader = pdf_reader(response)
    width, height = reader.pages[0].mediabox.width, reader.pages[0].mediabox.height
    assert width > height
    lines = pdf_lines(response)
    assert [line for line in lines if line.isdigit()][:16] == [*map(str, range(1, 13)), "1", "2", "3", "4"]
    cell = {"lines": ["стол 1 · место 2", "2 оч.", "против 2"]}
    rows = [
        {"line": i, "rank": i, "name": name, "points_text": "24", "cells": [cell] * 12, "tiebreaks": []}
        for i, name in enumerate(NAMES[:2], 1)
    ]
    sheet = {
        "event": event,
        "crosstable": {"rounds": list(range(1, 13)), "rows": rows},
        "tiebreaks": [],
        "legend": "—",
    }
    lines = pdf_lines(HttpResponse(paper.standings_pdf(sheet), content_type="application/pdf"))
    assert lines.count("Алёна") == 2 and lines.count("Тур 1") == 1 and lines.count("Тур 12") == 1
    assert lines.count("против 2") == 24


def test_issue18_a_round_being_played_shows_its_table_and_opponents_without_points(client):
    event = started_event()
    play_round(event, 1)
    tasks.sweep_events()
    assert Round.objects.get(tournament=event, number=2).status == Round.Status.PLAYING
    line = selectors.start_numbers(event)
    page = client.get(f"/tournaments/{event.pk}/print/standings/").content.decode()
    for rt in RoundTable.objects.filter(round__tournament=event, round__number=2):
        for pk in rt.entrants:
            name = selectors.entrant_names(event)[pk]
            row_html = page.split(f'<th scope="row">{name}</th>', 1)[1].split("</tr>", 1)[0]
            opponents = ", ".join(str(n) for n in sorted(line[other] for other in rt.entrants if other != pk))
            assert re.findall(r"<span>([^<]+)</span>", row_html)[3:] == [f"стол {rt.number}", f"против {opponents}"]
