"""Issue 21, "one place for each idea": the engine's rule errors, seat names, result
rows and the tournaments' flag texts each have one source, which every page uses."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from django.utils import translation

from games import display, errors
from games.records import views as record_views
from games.table.presenters import context as table_presenters
from tournaments import formats
from tournaments import selectors as tournament_selectors
from tournaments.services import setup as tournament_setup

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("games", "ratings", "tournaments", "reviews", "durak_site")


def python_files_saying(text: str) -> list[str]:
    """The product's modules (not the engine, which raises in English; not migrations) holding `text`."""
    found = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith("games/engine/") or "/migrations/" in relative:
                continue
            if text in path.read_text(encoding="utf-8"):
                found.append(relative)
    return found


def test_issue21_the_engines_rule_errors_have_one_table():
    assert python_files_saying("Team play needs 4 players") == ["games/errors.py"]
    assert display.rule_error_text is errors.rule_error_text
    assert tournament_setup.rule_error_lazy is errors.rule_error_lazy
    with translation.override("ru"):
        # Once known to the event setup only, now to the new-table form as well.
        assert (
            display.rule_error_text("A deck has 24, 36 or 52 cards, not 30.")
            == "В колоде 24, 36 или 52 карты, а не 30."
        )
        assert display.rule_error_text("Unknown rule option(s): x.") == "Неизвестные настройки правил: x."
        assert str(errors.rule_error_lazy("Durak is played by 2 to 6 players, not 7.")).startswith("В дурака играют")


def test_issue21_a_seat_is_named_in_one_place():
    assert python_files_saying('"Bot %(n)s"') == ["games/display.py"]
    assert python_files_saying('"Seat %(n)s"') == ["games/display.py"]
    with translation.override("ru"):
        names = [
            table_presenters._seat_name(seat, 1)
            for seat in (None, {}, {"bot_level": "easy"}, {"name": "anna", "bot_level": "easy"})
        ]
        assert names == [
            display.seat_player_name("", "", 1),
            display.seat_player_name("", "", 1),
            display.seat_player_name("", "easy", 1),
            "anna",
        ]


def test_issue21_the_table_and_the_record_rank_a_result_alike():
    """Three players, two of whom left: both count as last (3), ranked by the place their
    cards reached, on the table's panel and on the record page alike."""
    played = {0: 3, 1: 2, 2: 1}
    left = {0, 1}
    counted = {0: 3, 1: 3, 2: 1}
    result = {"places": {str(s): p for s, p in played.items()}, "losers": [0], "durak": 0}
    game_dict = {"seats": [{"number": s, "abandoned": s in left, "counted_place": counted[s]} for s in played]}
    names = {0: "anna", 1: "boris", 2: "vera"}
    panel = table_presenters._result(result, game_dict, names, {"players": 3})

    game = SimpleNamespace(rules={"players": 3}, result=result)
    record_names = {
        s: {
            "name": names[s],
            "seat": SimpleNamespace(place=played[s], abandoned=s in left, is_loser=s == 0, counted_place=counted[s]),
        }
        for s in played
    }
    record = record_views._result_rows(game, record_names)

    on_the_table = [(row["seat"], row["place"], row["played_place"]) for row in panel["places"]]
    on_the_record = [(row["number"], row["place"], row["played_place"]) for row in record]
    assert on_the_table == [(2, 1, None), (1, 3, 2), (0, 3, None)]
    assert on_the_record == on_the_table


def test_issue21_the_flags_are_worded_in_one_place():
    assert python_files_saying("seated at a table of higher scores than its own") == [
        "tournaments/selectors/__init__.py"
    ]
    assert set(formats.FLAGS) == set(tournament_selectors.FLAG_TEXTS)
