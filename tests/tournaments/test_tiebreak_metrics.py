"""Each tie-break is one metric: it computes its values, names itself in both languages and says
how it prints; the standings page, its live partial, the exports and the print show exactly the
event's tie-break columns in its order; a name the registry does not know cannot be saved.

The events here are built by hand (rounds, tables and results written directly), as a director
would find them after an evening: a round robin of four at tables of two (1 point a win).
"""

import csv
import io
import re
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.utils import timezone, translation
from openpyxl import load_workbook

from tournaments import exports, paper, selectors, services, standings, views
from tournaments.errors import TournamentRefused
from tournaments.forms import TournamentForm
from tournaments.models import Entrant, Result, Round, RoundTable, Tournament

from .helpers import make_event, make_users
from .test_paper import pdf_lines

pytestmark = pytest.mark.django_db

# Round 1: 1 beat 2, 3 beat 4; round 2: 1 beat 3, 2 beat 4; round 3: 4 beat 1, 2 beat 3.
# Points: p01 2, p02 2, p03 1, p04 1. p01 beat p02 where they met; p03 beat p04.
ROUND_ROBIN = [[(1, 2), (3, 4)], [(1, 3), (2, 4)], [(4, 1), (2, 3)]]


def finished_event(games=ROUND_ROBIN, **kw) -> tuple[Tournament, list[Entrant]]:
    """A finished event at tables of two: in each round, each (winner, loser) pair a table."""
    now = timezone.now()
    fields = {"format": Tournament.Format.ROUND_ROBIN, "table_size": 2, "rounds": len(games)}
    event = make_event(
        **{**fields, **kw}, status=Tournament.Status.FINISHED, started_at=now - timedelta(hours=1), finished_at=now
    )
    entrants = [
        Entrant.objects.create(tournament=event, user=user, seed=seed) for seed, user in enumerate(make_users(4), 1)
    ]
    for number, tables in enumerate(games, 1):
        round_ = Round.objects.create(tournament=event, number=number, status=Round.Status.FINISHED, starts_at=now)
        for table, (winner, loser) in enumerate(tables, 1):
            seated = [entrants[winner - 1], entrants[loser - 1]]
            rt = RoundTable.objects.create(
                round=round_, number=table, entrants=[e.pk for e in seated], games_played=1, done=True
            )
            for place, entrant in enumerate(seated, 1):
                Result.objects.create(
                    round=round_,
                    round_table=rt,
                    entrant=entrant,
                    game_number=1,
                    place=place,
                    points=1.0 if place == 1 else 0.0,
                    is_durak=place == 2,
                )
    return event, entrants


def page_columns(html: str) -> list[str]:
    """The tie-break columns' heads of the standings table, in order."""
    table = html[html.index('<table class="standings">') :]
    table = table[: table.index("</thead>")]
    return re.findall(r'<th class="tiebreak"><abbr title="[^"]*">([^<]+)</abbr></th>', table)


def page_values(html: str, name: str) -> list[str]:
    """The values of tie-break `name` down the standings table."""
    return re.findall(rf'<td class="tiebreak" data-tiebreak="{name}">([^<]*)</td>', html)


def russian_headers(names) -> list[str]:
    with translation.override("ru"):
        return [str(standings.METRICS[name].header) for name in names]


def _csv(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8-sig"))))


# ------------------------------------------------------------- the registry


def test_each_tie_break_is_one_metric_named_in_both_languages_and_defined():
    for name, metric in standings.METRICS.items():
        assert isinstance(metric, standings.Metric) and metric.name == name
        assert metric.description, name
        with translation.override("en"):
            english = (str(metric.label), str(metric.header))
        with translation.override("ru"):
            russian = (str(metric.label), str(metric.header))
        assert all(english) and all(russian), name
        assert russian[0] != english[0] and russian[1] != english[1], f"{name} is not translated"


def test_the_formats_default_orders_name_registered_metrics_only():
    for format_name in Tournament.Format.values:
        names = standings.tiebreaks_for(format_name)
        assert standings.check_tiebreaks(list(names)) == list(names), format_name


def test_a_metric_prints_its_decimals_in_the_active_language():
    buchholz, duraks = standings.METRICS["buchholz"], standings.METRICS["duraks"]
    with translation.override("ru"):
        assert [buchholz.text(v) for v in (3.75, 3.5, 3.0, 2 / 3)] == ["3,75", "3,5", "3", "0,67"]
        assert duraks.text(2) == "2" and standings.METRICS["seed"].text(None) == "–"
    with translation.override("en"):
        assert buchholz.text(3.75) == "3.75"
    assert buchholz.number(2 / 3) == 0.67 and buchholz.number(3.0) == 3 and isinstance(buchholz.number(3.0), int)


def test_the_values_a_line_carries_are_every_registered_metric():
    rows = [
        {"entrant": w, "round": r, "table": t, "points": p, "durak": p == 0, "game": 1, "place": 1 if p else 2}
        for r, tables in enumerate(ROUND_ROBIN, 1)
        for t, (winner, loser) in enumerate(tables)
        for w, p in ((winner, 1), (loser, 0))
    ]
    lines = standings.compute([1, 2, 3, 4], rows, tiebreaks=["sonneborn_berger"])
    for line in lines:
        assert set(line.values) == set(standings.METRICS)
        assert line.buchholz == line.values["buchholz"]


# ------------------------------------------------ the columns an event shows


def test_a_round_robin_shows_the_tie_breaks_that_decided_it_and_no_buchholz(client):
    # What a director saw: p01 ranked above p02 on identical visible numbers (points, Buchholz,
    # durak finishes, games), the Sonneborn-Berger that decided not shown. Now the columns are the
    # event's order (a round robin's default: head-to-head, Sonneborn-Berger, ...) and the numbers
    # that split the tie are on the page.
    event, (p01, p02, p03, p04) = finished_event()
    html = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert page_columns(html) == russian_headers(standings.tiebreaks_for("round_robin"))
    assert page_columns(html)[:2] == ["Личные встречи", "Зоннеборн — Бергер"]
    assert "Бухгольц" not in page_columns(html)
    assert [line["name"] for line in selectors.standings_table(event)] == ["p01", "p02", "p03", "p04"]
    # p01 and p02 tie on 2 points, p03 and p04 on 1: head-to-head (1 and 0) splits both ties.
    assert page_values(html, "head_to_head") == ["1", "0", "1", "0"]
    assert page_values(html, "sonneborn_berger") == ["1", "0,67", "0,33", "0,67"]


def test_the_event_s_own_order_is_its_columns_everywhere(client):
    order = ["seed", "wins", "buchholz"]
    event, _entrants = finished_event(tiebreaks=order)
    headers = russian_headers(order)
    html = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert page_columns(html) == headers
    live = views.render_panel(event, None)
    assert page_columns(live) == headers, "the live standings partial shows the same columns"
    csv_header = _csv(client.get(f"/tournaments/{event.pk}/standings.csv").content)[0]
    assert csv_header[4:7] == headers and csv_header[7:10] == ["рейтинг", "баи", "статус"]
    printed = client.get(f"/tournaments/{event.pk}/print/standings/").content.decode()
    assert re.findall(r'<th scope="col" class="tiebreak"><abbr title="[^"]*">([^<]+)</abbr>', printed) == headers
    assert re.findall(r'data-tiebreak="(\w+)"', printed)[:3] == order
    trf = client.get(f"/tournaments/{event.pk}/standings.trf").content.decode().splitlines()
    assert "XXB seed wins buchholz" in trf
    # p01 (start number 1): seed 1, 2 wins, Buchholz (2 + 1 + 1) / 3 = 1.33.
    assert next(line for line in trf if line.startswith("XXT    1")).split()[2:] == ["1", "2", "1.33"]


def test_every_registered_tie_break_renders_on_the_page_the_exports_and_the_print(client):
    # A metric added to the registry that cannot be shown (a missing label, a value the page or a
    # sheet cannot print) fails here, whatever its name.
    everything = list(standings.METRICS)
    event, _entrants = finished_event(tiebreaks=everything)
    headers = russian_headers(everything)
    html = client.get(f"/tournaments/{event.pk}/").content.decode()
    assert page_columns(html) == headers
    for name in everything:
        assert len(page_values(html, name)) == 4, name
    assert page_columns(views.render_panel(event, None)) == headers
    assert _csv(exports.export(event, "standings", "csv")[0])[0][4 : 4 + len(everything)] == headers
    book = load_workbook(io.BytesIO(exports.export(event, "standings", "xlsx")[0])).active
    assert [cell.value for cell in book[1]][4 : 4 + len(everything)] == headers
    trf = exports.export(event, "standings", "trf")[0].decode()
    assert f"XXB {' '.join(everything)}" in trf.splitlines()
    assert client.get(f"/tournaments/{event.pk}/print/standings/").status_code == 200
    pdf = client.get(f"/tournaments/{event.pk}/print/standings.pdf")
    printed = "".join("".join(pdf_lines(pdf)).split())
    for header in headers:
        assert "".join(header.split()) in printed, header


def test_the_print_and_its_pdf_show_the_tie_breaks_after_the_points(client):
    event, _entrants = finished_event()
    sheet = paper.standings_sheet(event)
    assert [metric.name for metric in sheet["tiebreaks"]] == list(standings.tiebreaks_for("round_robin"))
    with translation.override("ru"):
        sheet = paper.standings_sheet(event)
    lines = pdf_lines(HttpResponse(paper.standings_pdf(sheet), content_type="application/pdf"))
    text = "\n".join(lines)
    assert "Личные" in text and "0,67" in text and "0,33" in text


def test_points_and_tie_breaks_show_two_decimals_not_one(client):
    # The crosstable showed 3.75 points as "3,8": a table that played fewer games a round has its
    # points scaled (UNEQUAL_GAMES_RULE) and quarters are common.
    event, (p01, *_rest) = finished_event(tiebreaks=["buchholz"])
    Result.objects.filter(entrant=p01, round__number=1).update(points=3.75)
    html = client.get(f"/tournaments/{event.pk}/").content.decode()
    crosstable = html[html.index("event-crosstable") :]
    assert ": 3,75" in crosstable and "3,8" not in crosstable
    # p02 met p01 (4.75 points), p03 (1) and p04 (1): Buchholz 6.75 / 3 = 2.25.
    assert "2,25" in page_values(html, "buchholz")
    printed = client.get(f"/tournaments/{event.pk}/print/standings/").content.decode()
    assert "3,75 оч." in printed and "4,75" in printed


# ------------------------------------------------- an unknown name is refused


REFUSED = "Дополнительного показателя «luck» нет. Выберите из списка: {names}."


def test_the_form_refuses_an_unknown_or_repeated_tie_break_in_russian():
    known = ", ".join(standings.METRICS)
    form = TournamentForm()
    form.cleaned_data = {"tiebreaks": "seed, luck"}
    with pytest.raises(ValidationError) as refused:
        form.clean_tiebreaks()
    assert refused.value.messages == [REFUSED.format(names=known)]
    form.cleaned_data = {"tiebreaks": "seed, seed"}
    with pytest.raises(ValidationError) as refused:
        form.clean_tiebreaks()
    assert refused.value.messages == ["Дополнительный показатель «seed» указан дважды: каждый указывается один раз."]
    # The help text names every registered metric, read from the registry.
    help_text = str(TournamentForm().fields["tiebreaks"].help_text)
    for name, metric in standings.METRICS.items():
        assert f"{name}: {metric.label}" in help_text


def test_the_model_refuses_an_unknown_tie_break():
    event = make_event(tiebreaks=["buchholz"])
    event.tiebreaks = ["buchholz", "luck"]
    with pytest.raises(ValidationError) as refused:
        event.full_clean()
    assert refused.value.message_dict["tiebreaks"] == [REFUSED.format(names=", ".join(standings.METRICS))]


def test_the_service_refuses_an_unknown_tie_break_and_saves_nothing(director):
    event = Tournament(
        name="Вечер без правил",
        variant="podkidnoy",
        rules={},
        table_size=4,
        rounds=3,
        turn_seconds=30,
        starts_at=timezone.now() + timedelta(hours=1),
        tiebreaks=["luck"],
    )
    with pytest.raises(TournamentRefused) as refused:
        services.do_create_event(event=event, by=director, key=None)
    assert str(refused.value) == REFUSED.format(names=", ".join(standings.METRICS))
    assert not Tournament.objects.filter(name="Вечер без правил").exists()
    with pytest.raises(TournamentRefused):
        services.validate_event(Tournament(table_size=4, turn_seconds=30, tiebreaks="buchholz"))


def test_the_trf_text_gives_each_entrant_s_tie_breaks_by_the_documented_columns():
    # docs/exports.md: an XXT line per entrant, the start number in columns 5-8, then each value
    # of the XXB line's tie-breaks right-aligned in 8 columns after one space.
    event, _entrants = finished_event()
    lines = exports.export(event, "standings", "trf")[0].decode().splitlines()
    names = next(line for line in lines if line.startswith("XXB"))[4:].split()
    assert names == list(standings.tiebreaks_for("round_robin"))
    numbers = selectors.start_numbers(event)
    by_start = {numbers[line["entrant"]]: line for line in selectors.standings_table(event)}
    rows = [line for line in lines if line.startswith("XXT")]
    assert len(rows) == 4
    for row in rows:
        line = by_start[int(row[4:8])]
        values = [row[9 + 9 * k : 17 + 9 * k].strip() for k in range(len(names))]
        assert [float(v) for v in values] == [cell["number"] for cell in line["tiebreaks"]]
