"""The exports of an event a club can post: the standings with a column group per round, every
game, and a TRF-like plain text (docs/exports.md).

Two steps. The sheets (`standings_sheet`, `games_sheet`) are plain rows read from the selectors:
translated headers in the request's language, numbers as numbers, times in the club's time zone
(settings.TIME_ZONE). The writers of WRITERS turn them into bytes by format: CSV (UTF-8 with a
BOM, so a spreadsheet on Windows reads Cyrillic), XLSX (openpyxl) and the TRF-like text, which
reads the crosstable itself. Views call `export` only.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone
from django.utils.translation import pgettext

from games import selectors as games_selectors

from . import registry, selectors
from .models import Result, Tournament

# ------------------------------------------------------------------ sheets


@dataclass
class Sheet:
    """A table to write: its title (the XLSX sheet's name), its header and its rows of cells
    (str, int, float, datetime or None for an empty cell)."""

    title: str
    header: list[str]
    rows: list[list]


def club_time(value: datetime | None) -> datetime | None:
    """A stored (UTC) time as the club reads it on its wall clock: settings.TIME_ZONE, naive, to the second."""
    if value is None:
        return None
    return timezone.localtime(value, timezone.get_default_timezone()).replace(tzinfo=None, microsecond=0)


def _number(value):
    """3.0 -> 3 (a club's sheet says 3 points, not 3.0); other numbers as they are."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _rating(value: float | None):
    """The rating as the standings show it; None (an empty cell) for a provisional or unrated player."""
    if value is None:
        return None
    return _number(round(value, 1))


def round_header(number: int, by_games: bool = False) -> list[str]:
    """A round's four column names; an arena's (`by_games`) name the entrant's n-th game."""
    values = {"number": number}
    if by_games:
        return [
            pgettext("standings csv", "game %(number)s: table") % values,
            pgettext("standings csv", "game %(number)s: opponents") % values,
            pgettext("standings csv", "game %(number)s: place") % values,
            pgettext("standings csv", "game %(number)s: points") % values,
        ]
    return [
        pgettext("standings csv", "round %(number)s: table") % values,
        pgettext("standings csv", "round %(number)s: opponents") % values,
        pgettext("standings csv", "round %(number)s: place") % values,
        pgettext("standings csv", "round %(number)s: points") % values,
    ]


def round_cells(cell: dict | None) -> list:
    """A crosstable cell as four columns: the table (the word "bye" for a bye), the table-mates'
    start numbers, the place at the table, the round's points; four empty cells for a round not played."""
    if cell is None:
        return [None, None, None, None]
    table = pgettext("standings csv", "bye") if cell["bye"] else cell["table"]
    opponents = " ".join(str(o["start"]) for o in cell["opponents"]) or None
    return [table, opponents, cell["place"], _number(cell["points"])]


def standings_sheet(event: Tournament) -> Sheet:
    """The standings as the event page shows them (order, the event's tie-breaks in its order,
    state), one line per entrant, then per round its table, table-mates (by start number), place
    and points (selectors.crosstable)."""
    cross = selectors.crosstable(event)
    header = [
        pgettext("standings csv", "rank"),
        pgettext("standings csv", "start number"),
        pgettext("standings csv", "name"),
        pgettext("standings csv", "points"),
        *[str(metric.header) for metric in selectors.tiebreak_columns(event)],
        pgettext("standings csv", "rating"),
        pgettext("standings csv", "byes"),
        pgettext("standings csv", "state"),
    ]
    for number in cross["rounds"]:
        header += round_header(number, cross["by_games"])
    rows = []
    for line in cross["rows"]:
        row = [
            line["rank"],
            line["start"],
            line["name"],
            _number(line["points"]),
            *[cell["number"] for cell in line["tiebreaks"]],
            _rating(line["rating"]),
            line["byes"],
            line["state"],
        ]
        for cell in line["cells"]:
            row += round_cells(cell)
        rows.append(row)
    return Sheet(pgettext("standings csv", "Standings"), header, rows)


def games_sheet(event: Tournament) -> Sheet:
    """Every game of the event, one line per entrant and game: round, table, game, the site's
    game and table ids, when it finished (the club's time), the seed's hash, place, points, durak, corrected."""
    if registry.of(event).continuous:
        return arena_games_sheet(event)
    names = selectors.entrant_names(event)
    results = list(
        Result.objects.filter(round__tournament=event, game__isnull=False)
        .select_related("round", "round_table")
        .order_by("round__number", "round_table__number", "game_number", "place", "pk")
    )
    games = {g["pk"]: g for g in games_selectors.games_with_seats({r.game_id for r in results})}
    header = [
        pgettext("games csv", "round"),
        pgettext("games csv", "table"),
        pgettext("games csv", "game"),
        pgettext("games csv", "game id"),
        pgettext("games csv", "site table"),
        pgettext("games csv", "finished (%(zone)s)") % {"zone": timezone.get_default_timezone_name()},
        pgettext("games csv", "seed hash"),
        pgettext("games csv", "entrant"),
        pgettext("games csv", "place"),
        pgettext("games csv", "points"),
        pgettext("games csv", "durak"),
        pgettext("games csv", "corrected"),
    ]
    rows = []
    for r in results:
        game = games.get(r.game_id, {})
        rows.append(
            [
                r.round.number,
                r.round_table.number if r.round_table else None,
                r.game_number,
                r.game_id,
                game.get("table_id"),
                club_time(game.get("finished_at")),
                game.get("seed_hash") or None,
                names.get(r.entrant_id, "?"),
                r.place,
                _number(r.points),
                int(r.is_durak),
                int(r.corrected_at is not None),
            ]
        )
    return Sheet(pgettext("games csv", "Games"), header, rows)


def arena_games_sheet(event: Tournament) -> Sheet:
    """An arena's games (it has no rounds): per entrant, in standings order, his games in the
    order he played them (the order dealt: a table's number), numbered 1, 2, ... for him."""
    names = selectors.entrant_names(event)
    order = [line["entrant"] for line in selectors.standings_table(event)]
    results = list(
        Result.objects.filter(round__tournament=event, game__isnull=False)
        .select_related("round_table")
        .order_by("round_table__number", "pk")
    )
    games = {g["pk"]: g for g in games_selectors.games_with_seats({r.game_id for r in results})}
    header = [
        pgettext("games csv", "entrant"),
        pgettext("games csv", "entrant's game"),
        pgettext("games csv", "table"),
        pgettext("games csv", "game id"),
        pgettext("games csv", "site table"),
        pgettext("games csv", "finished (%(zone)s)") % {"zone": timezone.get_default_timezone_name()},
        pgettext("games csv", "seed hash"),
        pgettext("games csv", "place"),
        pgettext("games csv", "points"),
        pgettext("games csv", "durak"),
        pgettext("games csv", "corrected"),
    ]
    per_entrant: dict[int, list[Result]] = {}
    for r in results:
        per_entrant.setdefault(r.entrant_id, []).append(r)
    rows = []
    for entrant_id in order:
        for n, r in enumerate(per_entrant.get(entrant_id, []), 1):
            game = games.get(r.game_id, {})
            rows.append(
                [
                    names.get(entrant_id, "?"),
                    n,
                    r.round_table.number if r.round_table else None,
                    r.game_id,
                    game.get("table_id"),
                    club_time(game.get("finished_at")),
                    game.get("seed_hash") or None,
                    r.place,
                    _number(r.points),
                    int(r.is_durak),
                    int(r.corrected_at is not None),
                ]
            )
    return Sheet(pgettext("games csv", "Games"), header, rows)


SHEETS: dict[str, Callable[[Tournament], Sheet]] = {"standings": standings_sheet, "games": games_sheet}

# ------------------------------------------------------------------ writers

#: The way a time is written where a cell holds text (CSV, the TRF-like dates).
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def csv_text(value) -> str | int | float:
    """A cell for the csv module: empty for None, a time as the club's clock reads it, text that
    a spreadsheet would run as a formula neutralised (selectors.csv_cell)."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime(TIME_FORMAT)
    return selectors.csv_cell(value)


def write_csv(sheet: Sheet) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([csv_text(value) for value in sheet.header])
    for row in sheet.rows:
        writer.writerow([csv_text(value) for value in row])
    # "utf-8-sig" writes the BOM: without it Excel on Windows reads the file as ANSI.
    return out.getvalue().encode("utf-8-sig")


def write_xlsx(sheet: Sheet) -> bytes:
    from openpyxl import Workbook
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    from openpyxl.styles import Font

    book = Workbook()
    ws = book.active
    ws.title = _sheet_title(sheet.title)
    widths: dict[int, int] = {}
    for row_number, values in enumerate([sheet.header, *sheet.rows], start=1):
        for column, value in enumerate(values, start=1):
            if isinstance(value, str):
                value = ILLEGAL_CHARACTERS_RE.sub("", value)  # openpyxl refuses control characters
            cell = ws.cell(row=row_number, column=column, value=value)
            if isinstance(value, str) and cell.data_type == "f":
                cell.data_type = "s"  # a name like "=1+2" stays text: openpyxl would store a formula
            if isinstance(value, datetime):
                cell.number_format = "yyyy-mm-dd hh:mm:ss"
            if row_number == 1:
                cell.font = Font(bold=True)
            shown = len(value.strftime(TIME_FORMAT)) if isinstance(value, datetime) else len(str(value or ""))
            widths[column] = max(widths.get(column, 0), shown)
    for column, width in widths.items():
        ws.column_dimensions[ws.cell(row=1, column=column).column_letter].width = min(max(width + 2, 6), 40)
    ws.freeze_panes = "A2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _sheet_title(title: str) -> str:
    """An XLSX sheet's name: at most 31 characters, none of []:*?/\\."""
    return "".join(ch for ch in title if ch not in "[]:*?/\\")[:31] or "Sheet"


# ---------------------------------------------------------- the TRF-like text

#: The columns of an entrant's line ("001"), 1-based and inclusive, as docs/exports.md lists them.
TRF_FIELDS = (
    # name, first column, width, alignment
    ("tag", 1, 3, "<"),
    ("start", 5, 4, ">"),
    ("name", 10, 33, "<"),
    ("rating", 44, 4, ">"),
    ("points", 49, 6, ">"),
    ("rank", 56, 4, ">"),
    ("status", 61, 1, "<"),
)
#: Where round 1's block starts; each round's block: table (3), place (1), points (5), then
#: one start number (4) per table-mate slot, each field after one space.
TRF_ROUNDS_FROM = 63
TRF_ROUND_FIELDS = (("table", 3, ">"), ("place", 1, ">"), ("points", 5, ">"))
TRF_OPPONENT_WIDTH = 4
#: The status column: the standing group (standings.GROUPS) in one letter; blank for one in play.
TRF_STATUS = {"active": " ", "absent": "A", "withdrawn": "W", "disqualified": "D"}


def trf_points(value: float) -> str:
    """Points with a dot and at most two decimals: 3, 1.5, 2.25."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _field(value, width: int, align: str) -> str:
    text = "" if value is None else str(value)
    return f"{text[:width]:{align}{width}}"


def trf_round_width(slots: int) -> int:
    """A round's block, the space before it included."""
    return sum(1 + width for _name, width, _align in TRF_ROUND_FIELDS) + slots * (1 + TRF_OPPONENT_WIDTH)


def trf_slots(event: Tournament, cross: dict) -> int:
    """Table-mate slots per round: the event's table size less one, or more if a table held more."""
    met = [len(cell["opponents"]) for row in cross["rows"] for cell in row["cells"] if cell]
    return max([event.entrants_per_table - 1, *met, 1])


def trf_line(row: dict, slots: int) -> str:
    values = {
        "tag": "001",
        "start": row["start"],
        "name": row["name"],
        "rating": None if row["rating"] is None else round(row["rating"]),
        "points": trf_points(row["points"]),
        "rank": row["rank"],
        "status": TRF_STATUS.get(row["group"], " "),
    }
    line = ""
    for name, first, width, align in TRF_FIELDS:
        line = line.ljust(first - 1) + _field(values[name], width, align)
    line = line.ljust(TRF_ROUNDS_FROM - 1)
    for cell in row["cells"]:
        block = ""
        if cell is None:
            block = " " * trf_round_width(slots)
        else:
            table = "-" if cell["bye"] else cell["table"]
            place = "-" if cell["bye"] else cell["place"]
            for value, (_name, width, align) in zip(
                (table, place, trf_points(cell["points"])), TRF_ROUND_FIELDS, strict=True
            ):
                block += " " + _field(value, width, align)
            starts = [o["start"] for o in cell["opponents"]][:slots]
            for index in range(slots):
                block += " " + _field(starts[index] if index < len(starts) else None, TRF_OPPONENT_WIDTH, ">")
        line += block
    return line.rstrip()


def _date(value: datetime | None) -> str:
    local = club_time(value)
    return local.strftime("%Y/%m/%d") if local else ""


#: An XXT line (the tie-breaks' values): the start number in columns 5-8, then each value
#: right-aligned in TRF_TIEBREAK_WIDTH columns after one space, in the order of the XXB line.
TRF_TIEBREAK_WIDTH = 8


def trf_tiebreak_line(row: dict) -> str:
    line = "XXT " + _field(row["start"], 4, ">")
    for cell in row["tiebreaks"]:
        value = None if cell["number"] is None else trf_points(cell["number"])
        line += " " + _field(value, TRF_TIEBREAK_WIDTH, ">")
    return line.rstrip()


def write_trf(event: Tournament) -> bytes:
    """The header lines (012 name, 042 start, 052 end, 062 entrants, 092 format, XXR rounds,
    an arena's XXA minutes (its XXR and round blocks are each entrant's games), XXS table-mate
    slots, XXV variant, XXB the tie-breaks in order), then one 001 line per
    entrant, by start number, then one XXT line of tie-break values per entrant, the same order."""
    cross = selectors.crosstable(event)
    slots = trf_slots(event, cross)
    columns = selectors.tiebreak_columns(event)
    lines = [
        f"012 {event.name}",
        f"042 {_date(event.started_at or event.starts_at)}",
        f"052 {_date(event.finished_at)}".rstrip(),
        f"062 {len(cross['rows'])}",
        f"092 {event.get_format_display()}",
        f"XXR {len(cross['rounds']) if cross['by_games'] else event.rounds}",
        *([f"XXA {event.arena_minutes}"] if cross["by_games"] else []),
        f"XXS {slots}",
        f"XXV {event.get_variant_display()}",
        f"XXB {' '.join(metric.name for metric in columns)}".rstrip(),
    ]
    by_start = sorted(cross["rows"], key=lambda row: row["start"] or 0)
    lines += [trf_line(row, slots) for row in by_start]
    lines += [trf_tiebreak_line(row) for row in by_start]
    return ("\n".join(lines) + "\n").encode("utf-8")


# ---------------------------------------------------------------- registry


@dataclass(frozen=True)
class Writer:
    extension: str
    content_type: str
    write: Callable[[Tournament, str], bytes]
    sheets: tuple[str, ...]  # the exports it writes


WRITERS: dict[str, Writer] = {
    "csv": Writer("csv", "text/csv; charset=utf-8", lambda event, what: write_csv(SHEETS[what](event)), tuple(SHEETS)),
    "xlsx": Writer(
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        lambda event, what: write_xlsx(SHEETS[what](event)),
        tuple(SHEETS),
    ),
    "trf": Writer("trf", "text/plain; charset=utf-8", lambda event, what: write_trf(event), ("standings",)),
}


def export(event: Tournament, what: str, fmt: str) -> tuple[bytes, str, str]:
    """(content, content type, file name) of export `what` ("standings", "games") in format `fmt`;
    LookupError for a pair the registry does not write."""
    writer = WRITERS[fmt]
    if what not in writer.sheets:
        raise LookupError(f"{fmt} does not write {what}")
    return writer.write(event, what), writer.content_type, f"event-{event.pk}-{what}.{writer.extension}"
