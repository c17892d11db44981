"""Issue 18, point 1 ("Exports a club can post") and the crosstable of point 2: each export
parsed back (the CSV with its BOM through the csv module, the XLSX through openpyxl, the
TRF-like lines by the columns docs/exports.md gives) and compared with the standings selector
on a small event built by hand.

The event: four players at a table of three, two rounds, Cyrillic names, seeds 1-4 (the start
numbers). Round 1: table 1 seats Олег, Мария, Пётр (places 1, 2, 3: 3, 2 and 0 points, Пётр the
durak); Анна sits out (a bye, 1.5). Round 2: table 1 seats Анна, Олег, Мария (places 1, 2, 3),
Пётр sits out; Пётр is withdrawn after it. Totals: Олег 5, Анна 4.5, Мария 2, Пётр 1.5 (withdrawn: last).
"""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from openpyxl import load_workbook

from ratings.models import Rating
from ratings.selectors import ratings_for
from tests.support.games import make_user, open_game
from tournaments import exports, selectors
from tournaments.models import Entrant, Result, Round, RoundTable, Tournament

from .helpers import make_event

pytestmark = pytest.mark.django_db

#: When round 1's game ended, stored in UTC; the club's clock (settings.TIME_ZONE) reads it.
FINISHED_UTC = datetime(2026, 12, 1, 8, 9, 9, 26280, tzinfo=UTC)

RUSSIAN_HEADER = [
    "место",
    "стартовый номер",
    "имя",
    "очки",
    # The event's tie-breaks in its order (a Swiss event's default), nothing else.
    "Бухгольц",
    "Усечённый Бухгольц",
    "Зоннеборн — Бергер",
    "Раз в дураках",
    "Посев",
    "рейтинг",
    "баи",
    "статус",
    "тур 1: стол",
    "тур 1: соперники",
    "тур 1: место",
    "тур 1: очки",
    "тур 2: стол",
    "тур 2: соперники",
    "тур 2: место",
    "тур 2: очки",
]


def _table(round_, number, seated, places, game=None):
    """One table of a round, one game: `seated` in seat order, `places` 1.. in the same order;
    3/2/0 at three, the last the durak."""
    rt = RoundTable.objects.create(
        round=round_, number=number, entrants=[e.pk for e in seated], games_played=1, done=True
    )
    for entrant, place in zip(seated, places, strict=True):
        Result.objects.create(
            round=round_,
            round_table=rt,
            entrant=entrant,
            game=game,
            game_number=1,
            place=place,
            points={1: 3.0, 2: 2.0, 3: 0.0}[place],
            is_durak=place == 3,
        )


def _bye(round_, entrant):
    Result.objects.create(round=round_, entrant=entrant, game_number=0, points=1.5, is_bye=True)


@pytest.fixture
def club_event():
    users = [make_user(name) for name in ("Олег", "Мария", "Пётр", "Анна")]
    game = open_game(users[:3])
    # Written past the services: the test fixes the moment the game ended.
    type(game).objects.filter(pk=game.pk).update(finished_at=FINISHED_UTC)
    now = timezone.now()
    event = make_event(
        table_size=3, rounds=2, status=Tournament.Status.FINISHED, started_at=now - timedelta(hours=2), finished_at=now
    )
    oleg, maria, petr, anna = (
        Entrant.objects.create(tournament=event, user=user, seed=seed) for seed, user in enumerate(users, start=1)
    )
    one = Round.objects.create(tournament=event, number=1, status=Round.Status.FINISHED, starts_at=now, byes=[anna.pk])
    _table(one, 1, [oleg, maria, petr], [1, 2, 3], game=game)
    _bye(one, anna)
    two = Round.objects.create(tournament=event, number=2, status=Round.Status.FINISHED, starts_at=now, byes=[petr.pk])
    _table(two, 1, [anna, oleg, maria], [1, 2, 3])
    _bye(two, petr)
    Entrant.objects.filter(pk=petr.pk).update(state=Entrant.State.WITHDRAWN)
    # Олег has a settled rating; Мария a provisional one; the others none.
    Rating.objects.create(user=users[0], variant="podkidnoy", mu=30.0, sigma=4.0, games=120)
    Rating.objects.create(user=users[1], variant="podkidnoy", mu=30.0, sigma=8.3, games=3)
    return event


def _csv(response):
    assert response.status_code == 200
    assert response.content.startswith(b"\xef\xbb\xbf"), "UTF-8 BOM first: Excel on Windows reads Cyrillic"
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


def _number(text: str) -> float:
    return float(text.lstrip("'"))


def test_issue18_standings_csv_has_a_bom_russian_headers_and_the_standings_order(client, club_event):
    rows = _csv(client.get(f"/tournaments/{club_event.pk}/standings.csv"))
    assert rows[0] == RUSSIAN_HEADER
    lines = selectors.standings_table(club_event)
    assert [row[2] for row in rows[1:]] == [line["name"] for line in lines] == ["Олег", "Анна", "Мария", "Пётр"]
    assert [int(row[0]) for row in rows[1:]] == [line["rank"] for line in lines]
    assert [_number(row[3]) for row in rows[1:]] == [line["points"] for line in lines] == [5, 4.5, 2, 1.5]
    # Start numbers: the seeds fixed at the start, whatever the order now.
    assert [row[1] for row in rows[1:]] == ["1", "4", "2", "3"]


def test_issue18_standings_csv_per_round_table_opponents_place_and_points(client, club_event):
    rows = {row[2]: row for row in _csv(client.get(f"/tournaments/{club_event.pk}/standings.csv"))[1:]}
    # Олег: round 1 at table 1 with Мария (2) and Пётр (3), 1st, 3 points; round 2 with Анна (4), Мария, 2nd, 2.
    assert rows["Олег"][12:] == ["1", "2 3", "1", "3", "1", "4 2", "2", "2"]
    # Анна sat out round 1: the word "bye", no table-mates, no place, 1.5 points.
    assert rows["Анна"][12:] == ["бай", "", "", "1.5", "1", "1 2", "1", "3"]
    assert rows["Пётр"][12:] == ["1", "1 2", "3", "0", "бай", "", "", "1.5"]
    by_round = {line["name"]: line["by_round"] for line in selectors.standings_table(club_event)}
    for name, row in rows.items():
        assert [_number(row[15]), _number(row[19])] == [by_round[name][1], by_round[name][2]]


def test_issue18_final_states_after_the_finish_and_the_rating_empty_when_provisional(client, club_event):
    rows = {row[2]: row for row in _csv(client.get(f"/tournaments/{club_event.pk}/standings.csv"))[1:]}
    states = {line["name"]: line["state"] for line in selectors.standings_table(club_event)}
    assert {name: row[11] for name, row in rows.items()} == states
    assert [rows[name][11] for name in ("Олег", "Анна", "Мария")] == ["турнир завершён"] * 3
    assert rows["Пётр"][11] == Entrant.State.WITHDRAWN.label and rows["Пётр"][11] != "турнир завершён"
    oleg = Entrant.objects.get(tournament=club_event, user__username="Олег").user_id
    shown = ratings_for([oleg], "podkidnoy")[oleg]
    assert shown.isdigit() and rows["Олег"][9] == shown
    # Мария is provisional, Анна and Пётр unrated: an empty cell, not 0.0.
    assert [rows[name][9] for name in ("Мария", "Анна", "Пётр")] == ["", "", ""]


def test_issue18_standings_csv_headers_follow_the_request_language(client, club_event):
    client.cookies["django_language"] = "en"
    rows = _csv(client.get(f"/tournaments/{club_event.pk}/standings.csv"))
    assert rows[0][:12] == ["rank", "start number", "name", "points"] + [
        "Buchholz",
        "Median Buchholz",
        "Sonneborn-Berger",
        "Durak finishes",
        "Seed",
        "rating",
        "byes",
        "state",
    ]
    assert rows[0][12:16] == ["round 1: table", "round 1: opponents", "round 1: place", "round 1: points"]
    assert rows[1][11] == "finished" and rows[2][12] == "bye"


def test_issue18_games_csv_translated_header_and_the_clubs_local_time(client, club_event, settings):
    settings.TIME_ZONE = "Asia/Yekaterinburg"  # UTC+5, not the default, to show the setting is read
    rows = _csv(client.get(f"/tournaments/{club_event.pk}/games.csv"))
    assert rows[0] == [
        "тур",
        "стол",
        "партия",
        "№ партии",
        "стол на сайте",
        "окончена (Asia/Yekaterinburg)",
        "хеш зерна",
        "участник",
        "место",
        "очки",
        "дурак",
        "исправлено",
    ]
    assert len(rows) == 1 + 3  # round 1's game, one line per entrant; round 2's table has no game
    assert {row[5] for row in rows[1:]} == {"2026-12-01 13:09:09"}, "the wall clock, not UTC ISO"
    assert [(row[7], row[8], row[9], row[10]) for row in rows[1:]] == [
        ("Олег", "1", "3", "0"),
        ("Мария", "2", "2", "0"),
        ("Пётр", "3", "0", "1"),
    ]


def test_issue18_xlsx_holds_the_same_standings_and_games(client, club_event, settings):
    settings.TIME_ZONE = "Asia/Yekaterinburg"
    response = client.get(f"/tournaments/{club_event.pk}/standings.xlsx")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/vnd.openxmlformats")
    sheet = load_workbook(io.BytesIO(response.content)).active
    values = [list(row) for row in sheet.iter_rows(values_only=True)]
    as_text = [["" if v is None else str(v) for v in row] for row in values]
    assert as_text == _csv(client.get(f"/tournaments/{club_event.pk}/standings.csv"))
    assert values[1][3] == 5 and values[2][15] == 1.5, "numbers stay numbers"
    games = load_workbook(io.BytesIO(client.get(f"/tournaments/{club_event.pk}/games.xlsx").content)).active
    rows = list(games.iter_rows(values_only=True))
    assert rows[0][5] == "окончена (Asia/Yekaterinburg)"
    assert {row[5] for row in rows[1:]} == {datetime(2026, 12, 1, 13, 9, 9)}


def test_issue18_xlsx_keeps_a_formula_looking_name_as_text(club_event):
    Entrant.objects.get(tournament=club_event, user__username="Олег").user.__class__.objects.filter(
        username="Олег"
    ).update(username="=1+2")
    book = load_workbook(io.BytesIO(exports.export(club_event, "standings", "xlsx")[0]))
    cell = book.active.cell(row=2, column=3)
    assert cell.value == "=1+2" and cell.data_type == "s"


def _trf_fields(line: str) -> dict:
    """An 001 line by the columns of docs/exports.md (1-based, inclusive)."""
    return {
        "start": int(line[4:8]),
        "name": line[9:42].rstrip(),
        "rating": line[43:47].strip(),
        "points": float(line[48:54]),
        "rank": int(line[55:59]),
        "status": line[60],
    }


def _trf_rounds(line: str, rounds: int, slots: int) -> list[dict]:
    width = 12 + 5 * slots
    out = []
    for index in range(rounds):
        block = line[62 + index * width : 62 + (index + 1) * width].ljust(width)
        out.append(
            {
                "table": block[1:4].strip(),
                "place": block[5].strip(),
                "points": float(block[7:12]),
                "opponents": [
                    int(block[13 + 5 * k : 17 + 5 * k]) for k in range(slots) if block[13 + 5 * k : 17 + 5 * k].strip()
                ],
            }
        )
    return out


def test_issue18_trf_text_lines_parse_back_to_the_standings(client, club_event):
    response = client.get(f"/tournaments/{club_event.pk}/standings.trf")
    assert response.status_code == 200 and response["Content-Type"] == "text/plain; charset=utf-8"
    lines = response.content.decode("utf-8").splitlines()
    header = {line[:3]: line[4:] for line in lines if not line.startswith("001")}
    assert header["012"] == club_event.name and header["062"] == "4" and header["XXR"] == "2"
    slots = int(header["XXS"])
    assert slots == 2  # a table of three: two table-mates
    players = [line for line in lines if line.startswith("001")]
    parsed = [_trf_fields(line) for line in players]
    assert [p["start"] for p in parsed] == [1, 2, 3, 4], "by start number, as TRF lists them"
    by_name = {line["name"]: line for line in selectors.standings_table(club_event)}
    for p in parsed:
        line = by_name[p["name"]]
        assert (p["points"], p["rank"]) == (line["points"], line["rank"])
    status = {p["name"]: p["status"] for p in parsed}
    assert status == {"Олег": " ", "Мария": " ", "Пётр": "W", "Анна": " "}
    ratings = {p["name"]: p["rating"] for p in parsed}
    assert ratings["Олег"].isdigit() and ratings["Мария"] == ratings["Анна"] == ""
    rounds = {p["name"]: _trf_rounds(line, 2, slots) for p, line in zip(parsed, players, strict=True)}
    assert rounds["Олег"] == [
        {"table": "1", "place": "1", "points": 3.0, "opponents": [2, 3]},
        {"table": "1", "place": "2", "points": 2.0, "opponents": [4, 2]},
    ]
    assert rounds["Анна"][0] == {"table": "-", "place": "-", "points": 1.5, "opponents": []}


def test_issue18_crosstable_shows_the_opponents_met_place_and_points(client, club_event):
    cross = selectors.crosstable(club_event)
    oleg = cross["rows"][0]
    assert oleg["name"] == "Олег" and oleg["start"] == 1
    first, second = oleg["cells"]
    assert (first["table"], first["place"], first["points"], first["bye"]) == (1, 1, 3.0, False)
    assert [(o["start"], o["name"]) for o in first["opponents"]] == [(2, "Мария"), (3, "Пётр")]
    assert [(o["start"], o["name"]) for o in second["opponents"]] == [(4, "Анна"), (2, "Мария")]
    page = client.get(f"/tournaments/{club_event.pk}/").content.decode()
    assert "Кросстаблица" in page
    assert '<abbr title="Мария">2</abbr>, <abbr title="Пётр">3</abbr>' in page
    assert "С1 · 1-е место: 3" in page


def test_issue18_the_event_page_links_every_export(client, club_event):
    page = client.get(f"/tournaments/{club_event.pk}/").content.decode()
    for path in ("standings.csv", "standings.xlsx", "standings.trf", "games.csv", "games.xlsx"):
        assert f"/tournaments/{club_event.pk}/{path}" in page
        assert client.get(f"/tournaments/{club_event.pk}/{path}").status_code == 200
    # The TRF-like text holds the standings only: the registry refuses games in it.
    assert "games" not in exports.WRITERS["trf"].sheets
    with pytest.raises(LookupError):
        exports.export(club_event, "games", "trf")


def test_issue18_the_docs_example_reads_by_the_columns_the_docs_give():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "exports.md").read_text(encoding="utf-8")
    example = text.split("## The TRF-like text")[1].split("```")[1]
    lines = [line for line in example.splitlines() if line.startswith("001")]
    slots = int(next(line for line in example.splitlines() if line.startswith("XXS"))[4:])
    oleg = _trf_fields(lines[0])
    assert oleg == {"start": 1, "name": "Олег", "rating": "1525", "points": 5.0, "rank": 1, "status": " "}
    assert _trf_rounds(lines[0], 2, slots)[1] == {"table": "1", "place": "2", "points": 2.0, "opponents": [4, 2]}
    assert _trf_fields(lines[2])["status"] == "W"
