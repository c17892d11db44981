"""The event on paper: pairings by table, result slips per table and the standings with a
crosstable, as the data of the print pages and as PDF (ReportLab, A4).

The PDF embeds the DejaVu fonts shipped in tournaments/fonts/ (ReportLab's own fonts have
no Cyrillic), so a bare machine prints the names as they are written.
"""

from __future__ import annotations

import io
from pathlib import Path
from xml.sax.saxutils import escape

import segno
from django.utils.translation import pgettext
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Flowable, KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table

from . import selectors
from .models import Result, Round, Tournament

FONTS = Path(__file__).resolve().parent / "fonts"
FONT, BOLD = "DejaVuSans", "DejaVuSans-Bold"
MARGIN = 12 * mm
#: A slip with more games a round than this is printed landscape.
PORTRAIT_GAMES = 4
#: Rounds of the crosstable side by side on a landscape A4 page (fewer beside many tie-breaks:
#: rounds_per_block), and the narrowest a round's column and a tie-break's column may be.
ROUNDS_PER_BLOCK = 8
ROUND_WIDTH = 22 * mm
TIEBREAK_WIDTH = 15 * mm
NAME_WIDTH = 50 * mm
#: The crosstable header's type size, and ReportLab's cell padding on each side (its default).
HEADER_SIZE = 7.5
CELL_PADDING = 6

#: The QR code of the pairings sheet: medium error correction survives a creased sheet on a wall.
QR_ERROR = "m"
#: segno's SVG options for the print page (a data URI: the site's CSP allows data: images only).
QR_SVG = {"scale": 4, "border": 4, "dark": "#000", "light": "#fff"}


def qr_code(url: str):
    return segno.make(url, error=QR_ERROR)


def qr_svg_uri(url: str) -> str:
    return qr_code(url).svg_data_uri(**QR_SVG)


# ------------------------------------------------------------------ reads


def round_of(event: Tournament, number: int | None = None) -> Round | None:
    """Round `number`, else the latest round (the one on the wall tonight)."""
    rounds = event.round_set.order_by("-number")
    return rounds.filter(number=number).first() if number is not None else rounds.first()


def _pair_members(event: Tournament) -> dict[int, tuple[str, str]]:
    """{entrant id: (first player, second player)} of a pair event, as they sit (seats 1 and 3, or 2 and 4)."""
    members = {}
    for e in event.entrants.filter(pair__isnull=False).select_related("pair__player_one", "pair__player_two"):
        members[e.pk] = (e.pair.player_one.get_username(), e.pair.player_two.get_username())
    return members


def _seats(event: Tournament, entrant_ids: list[int], names: dict[int, str], members: dict) -> list[dict]:
    """The seats of one table in order. A pair event seats partners opposite (services.seating):
    seat 1 and 3 the first pair, 2 and 4 the second."""
    if not event.is_pairs:
        return [
            {"seat": i, "name": names.get(pk, "?"), "team": "", "partner": ""} for i, pk in enumerate(entrant_ids, 1)
        ]
    seats = []
    for half in (0, 1):
        for pk in entrant_ids:
            one, two = members.get(pk, ("?", "?"))
            me, partner = (one, two) if half == 0 else (two, one)
            seats.append({"name": me, "team": names.get(pk, "?"), "partner": partner})
    return [{"seat": i, **seat} for i, seat in enumerate(seats, 1)]


def pairings(event: Tournament, round_: Round | None, *, director: bool = False) -> dict:
    """The round's tables with their seats in order, and who sits out. A seating not published
    yet is the director's draft: shown to him only."""
    shown = round_ is not None and (director or selectors.seating_shown(round_))
    names = selectors.entrant_names(event) if shown else {}
    members = _pair_members(event) if shown and event.is_pairs else {}
    tables = []
    for rt in round_.tables.order_by("number") if shown else ():
        tables.append({"number": rt.number, "seats": _seats(event, list(rt.entrants), names, members)})
    return {
        "event": event,
        "round": round_,
        "shown": shown,
        "published": round_ is not None and selectors.seating_shown(round_),
        "tables": tables,
        "byes": [names.get(pk, "?") for pk in round_.byes] if shown else [],
    }


def result_slips(event: Tournament, round_: Round | None) -> dict:
    """One slip per table: the pairings (seen by the director) with a place box per game."""
    sheet = pairings(event, round_, director=True)
    sheet["games"] = list(range(1, event.games_per_round + 1))
    return sheet


def _number(value: float) -> str:
    """Points as the sheets print them: up to two decimals, a decimal comma (3,75; 1,5; 3)."""
    value = round(value, 2)
    return f"{value:g}".replace(".", ",") if value != int(value) else str(int(value))


def crosstable_with_opponents(event: Tournament) -> dict:
    """selectors.crosstable with, in each cell, the places taken at the table (one per game),
    the opponents met there by their start number (as the exports and the site's crosstable
    name them), and whether it was a bye. An arena's columns are each entrant's games."""
    table = selectors.crosstable(event)
    if table["by_games"]:
        return _games_with_opponents(table)
    line_of = {row["entrant"]: row["start"] for row in table["rows"]}
    seated: dict[tuple[int, int], tuple[int, list[int]]] = {}  # (entrant, round): (table number, table-mates)
    for round_ in event.round_set.prefetch_related("tables"):
        if not selectors.seating_shown(round_):  # the director's draft is not on the public sheet
            continue
        for rt in round_.tables.all():
            for pk in rt.entrants:
                seated[(pk, round_.number)] = (rt.number, rt.entrants)
    places: dict[tuple[int, int], list[int]] = {}
    byes: set[tuple[int, int]] = set()
    results = Result.objects.filter(round__tournament=event).order_by("game_number", "pk")
    for pk, number, place, is_bye in results.values_list("entrant_id", "round__number", "place", "is_bye"):
        if is_bye:
            byes.add((pk, number))
        elif place is not None:
            places.setdefault((pk, number), []).append(place)
    rows = []
    for row in table["rows"]:
        cells = []
        for number, cell in zip(table["rounds"], row["cells"], strict=True):
            key = (row["entrant"], number)
            if cell is None and key not in seated:
                cells.append(None)
                continue
            # A round being played has its seating and no points yet.
            table_number, mates = seated.get(key, (None, []))
            opponents = sorted(line_of[pk] for pk in mates if pk != row["entrant"] and pk in line_of)
            cells.append(
                {
                    "table": cell["table"] if cell else table_number,
                    "points": _number(cell["points"]) if cell else None,
                    "places": [str(p) for p in places.get(key, [])],
                    "opponents": [str(n) for n in opponents],
                    "bye": key in byes,
                }
            )
        rows.append({**row, "line": row["start"], "points_text": _number(row["points"]), "cells": cells})
    return {"rounds": table["rounds"], "rows": rows, "by_games": False}


def _games_with_opponents(table: dict) -> dict:
    """An arena's crosstable (a column per game of the entrant) as the sheets print it."""
    rows = []
    for row in table["rows"]:
        cells = [
            {
                "table": cell["table"],
                "points": _number(cell["points"]),
                "places": [str(p) for p in cell["places"]],
                "opponents": [str(o["start"]) for o in cell["opponents"]],
                "bye": False,
            }
            if cell
            else None
            for cell in row["cells"]
        ]
        rows.append({**row, "line": row["start"], "points_text": _number(row["points"]), "cells": cells})
    return {"rounds": table["rounds"], "rows": rows, "by_games": True}


def standings_sheet(event: Tournament) -> dict:
    """The crosstable with each cell's printed lines (cell_lines), the event's tie-breaks in its
    order after the points (`tiebreaks`: the metrics; each row's `tiebreaks`: their values as
    they print), and its legend."""
    cross = crosstable_with_opponents(event)
    for row in cross["rows"]:
        row["cells"] = [{**(cell or {}), "lines": cell_lines(cell)} for cell in row["cells"]]
    return {
        "event": event,
        "crosstable": cross,
        "tiebreaks": selectors.tiebreak_columns(event),
        "legend": crosstable_legend(),
    }


# ------------------------------------------------------------------ PDF


def _register_fonts() -> None:
    if FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(FONT, str(FONTS / "DejaVuSans.ttf")))
        pdfmetrics.registerFont(TTFont(BOLD, str(FONTS / "DejaVuSans-Bold.ttf")))


def _styles() -> dict[str, ParagraphStyle]:
    _register_fonts()
    body = ParagraphStyle("body", fontName=FONT, fontSize=10, leading=13)
    return {
        "title": ParagraphStyle("title", parent=body, fontName=BOLD, fontSize=16, leading=20, spaceAfter=4),
        "head": ParagraphStyle("head", parent=body, fontName=BOLD, fontSize=12, leading=15, spaceBefore=6),
        "body": body,
        "small": ParagraphStyle("small", parent=body, fontSize=7.5, leading=9),
        "head_cell": ParagraphStyle("head_cell", parent=body, fontName=BOLD, fontSize=HEADER_SIZE, leading=9),
        "cell": ParagraphStyle("cell", parent=body, fontSize=9, leading=11),
    }


def _p(text, style) -> Paragraph:
    return Paragraph(escape(str(text)), style)


def _lines(lines: list[str], style) -> Paragraph:
    return Paragraph("<br/>".join(escape(line) for line in lines), style)


GRID = [
    ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
    ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
    ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
]


class QrFlowable(Flowable):
    """The QR code drawn as one black square per dark module (no image library needed),
    with a link to `url` over it for whoever opens the PDF on a screen."""

    def __init__(self, url: str, size: float = 36 * mm):
        super().__init__()
        self.url = url
        self.matrix = qr_code(url).matrix
        self.border = 4
        self.width = self.height = size

    def draw(self):
        count = len(self.matrix) + 2 * self.border
        module = self.width / count
        self.canv.setFillColor(colors.black)
        for y, row in enumerate(self.matrix):
            for x, dark in enumerate(row):
                if dark:
                    left = (x + self.border) * module
                    top = self.height - (y + self.border + 1) * module
                    self.canv.rect(left, top, module, module, stroke=0, fill=1)
        self.canv.linkURL(self.url, (0, 0, self.width, self.height), relative=1)


def _event_line(event: Tournament, round_: Round | None) -> str:
    parts = [event.get_variant_display(), event.get_format_display(), event.get_kind_display()]
    if round_ is not None:
        parts.insert(0, pgettext("paper", "Round %(number)s") % {"number": round_.number})
    return " · ".join(str(p) for p in parts)


def _build(story: list, pagesize=A4) -> bytes:
    out = io.BytesIO()
    doc = SimpleDocTemplate(
        out, pagesize=pagesize, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN, bottomMargin=MARGIN
    )
    doc.build(story)
    return out.getvalue()


def _seat_rows(sheet: dict, seats: list[dict], s: dict) -> list[list]:
    if sheet["event"].is_pairs:
        return [[str(seat["seat"]), _p(seat["name"], s["cell"]), _p(seat["partner"], s["cell"])] for seat in seats]
    return [[str(seat["seat"]), _p(seat["name"], s["cell"])] for seat in seats]


def _not_shown(sheet: dict) -> str:
    if sheet["round"] is None:
        return pgettext("paper", "No round is seated yet.")
    return pgettext("paper", "The seating of this round is not published yet.")


def pairings_pdf(sheet: dict, url: str) -> bytes:
    s = _styles()
    event = sheet["event"]
    head = [
        _p(pgettext("paper", "Pairings"), s["small"]),
        _p(event.name, s["title"]),
        _p(_event_line(event, sheet["round"]), s["body"]),
    ]
    if sheet["shown"] and not sheet["published"]:
        head.append(_p(pgettext("paper", "Draft: not published to the players yet."), s["body"]))
    qr = [QrFlowable(url), _p(pgettext("paper", "Scan to open the event page"), s["small"])]
    story = [
        Table([[head, qr]], colWidths=[None, 40 * mm], style=[("VALIGN", (0, 0), (-1, -1), "TOP")]),
        Spacer(1, 4 * mm),
    ]
    if not sheet["shown"]:
        story.append(_p(_not_shown(sheet), s["body"]))
    header = [pgettext("paper", "Seat"), pgettext("paper", "Player")] + (
        [pgettext("paper", "Partner")] if event.is_pairs else []
    )
    widths = [26 * mm, None, 60 * mm] if event.is_pairs else [26 * mm, None]
    for table in sheet["tables"]:
        rows = [header, *_seat_rows(sheet, table["seats"], s)]
        grid = Table(rows, colWidths=widths, style=[*GRID, ("FONTNAME", (0, 0), (-1, -1), FONT)], hAlign="LEFT")
        story.append(
            KeepTogether([_p(pgettext("paper", "Table %(number)s") % {"number": table["number"]}, s["head"]), grid])
        )
    if sheet["byes"]:
        story.append(Spacer(1, 3 * mm))
        story.append(
            _p(pgettext("paper", "Sit out this round: %(names)s") % {"names": ", ".join(sheet["byes"])}, s["body"])
        )
    return _build(story)


def slip_note(event: Tournament) -> str:
    if event.is_pairs:
        return pgettext("paper", "Write each pair's place in each game: 1 for the winners, 2 for the durak's pair.")
    return pgettext(
        "paper", "Write each player's place in each game: 1 for the first out; the durak takes the last place."
    )


def slips_pdf(sheet: dict) -> bytes:
    s = _styles()
    event = sheet["event"]
    story = []
    if not sheet["tables"]:
        story.append(_p(_not_shown(sheet), s["body"]))
    # Many games a round do not fit a portrait slip: landscape, and narrower boxes headed by the number.
    pagesize = A4 if len(sheet["games"]) <= PORTRAIT_GAMES else landscape(A4)
    room = pagesize[0] - 2 * MARGIN - 24 * mm - 40 * mm - 45 * mm
    box = min(20 * mm, room / max(len(sheet["games"]), 1))
    if box >= 16 * mm:
        games = [pgettext("paper", "Game %(number)s: place") % {"number": n} for n in sheet["games"]]
    else:
        games = [str(n) for n in sheet["games"]]
    for table in sheet["tables"]:
        title = pgettext("paper", "Table %(number)s") % {"number": table["number"]}
        header = [pgettext("paper", "Seat"), pgettext("paper", "Player"), *games, pgettext("paper", "Signature")]
        rows = [[_p(cell, s["small"]) for cell in header]]
        for seat in table["seats"]:
            name = f"{seat['name']} ({seat['team']})" if seat["team"] else seat["name"]
            rows.append([str(seat["seat"]), _p(name, s["cell"]), *["" for _game in games], ""])
        widths = [24 * mm, None, *[box for _game in games], 40 * mm]
        grid = Table(
            rows,
            colWidths=widths,
            rowHeights=[None] + [10 * mm] * len(table["seats"]),
            style=[*GRID, ("FONTNAME", (0, 0), (-1, -1), FONT)],
        )
        story.append(
            KeepTogether(
                [
                    _p(pgettext("paper", "Result slip"), s["small"]),
                    _p(f"{event.name} · {_event_line(event, sheet['round'])}", s["body"]),
                    _p(title, s["title"]),
                    grid,
                    Spacer(1, 2 * mm),
                    _p(slip_note(event), s["small"]),
                    Spacer(1, 6 * mm),
                    _p(pgettext("paper", "Director's signature") + ": ______________________", s["body"]),
                    Spacer(1, 10 * mm),
                ]
            )
        )
    return _build(story, pagesize=pagesize)


def cell_lines(cell: dict | None) -> list[str]:
    """A crosstable cell as the sheets print it: the table and places, the points, the opponents."""
    if cell is None:
        return []
    points = [] if cell["points"] is None else [pgettext("paper", "%(points)s pt.") % {"points": cell["points"]}]
    if cell["bye"]:
        return [pgettext("paper", "bye"), *points]
    first = pgettext("paper", "table %(number)s") % {"number": cell["table"]} if cell["table"] else ""
    if cell["places"]:
        first += " · " + pgettext("paper", "place %(places)s") % {"places": ", ".join(cell["places"])}
    lines = [first.strip(" ·"), *points]
    if cell["opponents"]:
        lines.append(pgettext("paper", "vs %(lines)s") % {"lines": ", ".join(cell["opponents"])})
    return lines


def standings_pdf(sheet: dict) -> bytes:
    s = _styles()
    event = sheet["event"]
    cross = sheet["crosstable"]
    story = [
        _p(pgettext("paper", "Standings"), s["small"]),
        _p(event.name, s["title"]),
        _p(_event_line(event, None), s["body"]),
        Spacer(1, 3 * mm),
    ]
    metrics = sheet["tiebreaks"]
    column = pgettext("paper", "Game %(number)s") if cross.get("by_games") else pgettext("paper", "Round %(number)s")
    fixed = [
        header_width(text, minimum)
        for text, minimum in (
            ("№", 9 * mm),
            (pgettext("paper", "Rank"), 12 * mm),
            (pgettext("paper", "Points"), 16 * mm),
        )
    ]
    tiebreak_widths = [header_width(str(metric.header), TIEBREAK_WIDTH) for metric in metrics]
    per_block = rounds_per_block(len(metrics), fixed=sum(fixed) + NAME_WIDTH + sum(tiebreak_widths))
    # A long event's rounds go in blocks, each a table of its own with the names, totals and tie-breaks again.
    for start in range(0, max(len(cross["rounds"]), 1), per_block):
        block = slice(start, start + per_block)
        header = [
            "№",
            pgettext("paper", "Rank"),
            pgettext("paper", "Name"),
            *[column % {"number": n} for n in cross["rounds"][block]],
            pgettext("paper", "Points"),
            *[str(metric.header) for metric in metrics],
        ]
        rows = [[_p(text, s["head_cell"]) for text in header]]
        for row in cross["rows"]:
            cells = [_lines(c["lines"], s["small"]) for c in row["cells"][block]]
            tiebreaks = [cell["text"] for cell in row["tiebreaks"]]
            rows.append(
                [str(row["line"]), str(row["rank"]), _p(row["name"], s["cell"]), *cells, row["points_text"], *tiebreaks]
            )
        widths = [
            fixed[0],
            fixed[1],
            NAME_WIDTH,
            *[None for _n in cross["rounds"][block]],
            fixed[2],
            *tiebreak_widths,
        ]
        grid = Table(rows, colWidths=widths, repeatRows=1, style=[*GRID, ("FONTNAME", (0, 0), (-1, -1), FONT)])
        story += [grid, Spacer(1, 4 * mm)]
    story.append(Spacer(1, 3 * mm))
    story.append(_p(sheet["legend"], s["small"]))
    return _build(story, pagesize=landscape(A4))


def rounds_per_block(tiebreaks: int, fixed: float | None = None) -> int:
    """Rounds side by side on a landscape page beside the fixed columns and `tiebreaks` columns
    (`fixed`: their widths in all, when known)."""
    if fixed is None:
        fixed = (9 + 12 + 16) * mm + NAME_WIDTH + tiebreaks * TIEBREAK_WIDTH
    room = landscape(A4)[0] - 2 * MARGIN - fixed
    return max(1, min(ROUNDS_PER_BLOCK, int(room // ROUND_WIDTH)))


def header_width(text: str, minimum: float) -> float:
    """A column wide enough for the longest word of its header (a header wraps between words,
    never inside one: «Место» broke into «Мест» / «о»), and at least `minimum`."""
    _register_fonts()
    longest = max(pdfmetrics.stringWidth(word, BOLD, HEADER_SIZE) for word in text.split() or [""])
    return max(minimum, longest + 2 * CELL_PADDING + 1)


def crosstable_legend() -> str:
    return pgettext(
        "paper",
        "Each round: the table, the place in each game, the points, and the opponents met by their start number (№).",
    )
