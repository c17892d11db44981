"""Each format of event is one object in tournaments.registry, holding what it is and how it
runs; everything else asks it, so a new format is its module and its registration.

The objects live in tournaments/event_formats.py; docs/formats.md is the checklist of a new one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.template.loader import get_template

from tournaments import event_formats, registry, services, standings
from tournaments.models import Tournament

from .helpers import make_event

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
# Where the format may be named: the objects, the lookup, the model's choices and the pure seatings.
FORMAT_KNOWLEDGE = {
    "tournaments/event_formats.py",
    "tournaments/event_formats_double_elimination.py",
    "tournaments/registry.py",
    "tournaments/models.py",
}
BRANCH_ON_FORMAT = re.compile(
    r"Format\.[A-Z_]+\b"  # a choice compared or looked up by hand
    r"|\.format\s*[!=]=\s*[\"']"  # {% if event.format == "knockout" %}, event.format != "swiss"
    r"|\bis_knockout\b|\bis_arena\b"  # the booleans that stood for a format
)


def test_every_format_choice_has_one_object_and_every_object_is_a_choice():
    assert set(registry.FORMATS) == set(Tournament.Format.values)
    for name, event_format in registry.FORMATS.items():
        assert event_format.name == name
        assert event_format.label == Tournament.Format(name).label


def test_each_format_object_holds_what_the_pages_and_the_standings_ask_of_it():
    for event_format in registry.FORMATS.values():
        assert standings.check_tiebreaks(list(event_format.default_tiebreaks)), event_format
        assert set(event_format.table_sizes) <= {2, 3, 4, 5, 6} and event_format.table_sizes, event_format
        get_template(event_format.rules_template)
        if event_format.bracket_template:
            get_template(event_format.bracket_template)
    assert [f.name for f in registry.FORMATS.values() if f.knockout] == ["knockout", "double_elim"]
    assert [f.name for f in registry.FORMATS.values() if f.continuous] == ["arena"]
    assert [f.name for f in registry.FORMATS.values() if f.requested_byes] == ["swiss"]


def test_an_event_reads_its_format_object():
    assert make_event(format=Tournament.Format.KNOCKOUT).event_format is event_formats.KNOCKOUT
    assert registry.of(make_event(format=Tournament.Format.ARENA)) is event_formats.ARENA


def test_a_format_nobody_registered_is_named_in_the_error():
    with pytest.raises(LookupError, match="'double_knockout'"):
        registry.of_format("double_knockout")


def test_a_second_object_of_the_same_name_is_refused():
    class AnotherSwiss(event_formats.Swiss):
        pass

    with pytest.raises(ValueError, match="registered twice"):
        registry.register(AnotherSwiss())
    assert registry.of_format("swiss") is event_formats.SWISS


class _TwoOnlyNoPairs(event_formats.Knockout):
    table_sizes = (2,)
    pairs = False


def test_an_event_at_a_table_size_its_format_does_not_play_is_refused(monkeypatch):
    monkeypatch.setitem(registry.FORMATS, "knockout", _TwoOnlyNoPairs())
    services.validate_event(make_event(format=Tournament.Format.KNOCKOUT, table_size=2))
    event = make_event(format=Tournament.Format.KNOCKOUT, table_size=4)
    with pytest.raises(services.TournamentRefused) as refused:
        services.validate_event(event)
    assert str(refused.value) == "В этом формате играют только за столами такого размера: 2."


def test_pairs_in_a_format_that_takes_none_are_refused(monkeypatch):
    monkeypatch.setitem(registry.FORMATS, "knockout", _TwoOnlyNoPairs())
    event = make_event(format=Tournament.Format.KNOCKOUT, table_size=4, kind=Tournament.Kind.PAIRS)
    with pytest.raises(services.TournamentRefused) as refused:
        services.validate_event(event)
    assert str(refused.value) == "В этом формате не играют парами."


def test_nothing_outside_the_format_objects_branches_on_the_format():
    """Views, templates, forms, selectors, exports, print, standings and services ask the event's
    format object (`registry.of(event)`, `event.event_format`) instead of comparing its name."""
    found = []
    for path in sorted([*ROOT.glob("tournaments/**/*.py"), *ROOT.glob("templates/tournaments/**/*.html")]):
        relative = path.relative_to(ROOT).as_posix()
        if relative in FORMAT_KNOWLEDGE or "/migrations/" in relative or relative.startswith("tournaments/formats/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if BRANCH_ON_FORMAT.search(line):
                found.append(f"{relative}:{number}: {line.strip()[:100]}")
    assert not found, "Ask the format object (tournaments.registry) instead:\n  " + "\n  ".join(found)
