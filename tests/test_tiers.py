"""Test tiers (issue 21, point 5): markers by cost, the two passes of `dev.py test`,
and a Redis database number of its own for each pytest-xdist worker."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import dev
from tests import conftest, costs
from tests.ops.settings import redis_url_for_worker

ROOT = Path(__file__).resolve().parents[1]
FAST = "not browser and not services and not slow"


def test_issue21_markers_are_registered_and_unknown_ones_refused(pytestconfig):
    registered = {line.split(":")[0].strip() for line in pytestconfig.getini("markers")}
    assert {"browser", "services", "slow", "serial"} <= registered
    assert "--strict-markers" in pytestconfig.getini("addopts")


@pytest.mark.parametrize(
    ("path", "name", "tiers"),
    [
        ("tests/browser/test_table_in_browser.py", "test_anything", {"browser"}),
        ("tests/scale/test_processes.py", "test_anything", {"services"}),
        ("tests/scaleout/inner/test_game_flow.py", "test_anything", {"services"}),
        ("tests/test_outside_services.py", "test_postgres_answers", {"services"}),
        ("tests/ratings/test_queues_live.py", "test_a_podkidnoy_game_never_waits_for_a_perevodnoy_one", {"services"}),
        ("tests/engine/test_properties.py", "test_random_games_keep_invariants", {"slow"}),
        (
            "tests/reviews/test_budget.py",
            "test_every_part_keeps_its_budget_although_one_decision_costs_more",
            {"slow", "serial"},
        ),
        ("tests/engine/test_rules_deal.py", "test_anything", set()),
    ],
)
def test_issue21_tiers_come_from_the_directory_and_the_lists(path, name, tiers):
    assert conftest.cost_tiers(path, name) == tiers


@pytest.mark.parametrize(
    ("nodeid", "scope"),
    [
        ("tests/browser/test_table_in_browser.py::test_a_new_user_plays_a_whole_game_against_a_bot", "browser"),
        ("tests/scale/test_faults.py::test_x[2-seats]", "services"),
        ("tests/tournaments/test_embedded_event.py::test_the_club_evening_on_postgres_and_redis", "services"),
        ("tests/engine/test_properties.py::test_random_games_keep_invariants", None),
        ("tests/ratings/test_services.py::RecomputationProperty::test_recomputation", None),
    ],
)
def test_issue21_the_scheduler_keeps_each_shared_tier_to_one_worker(nodeid, scope):
    assert conftest.shared_scope(nodeid) == scope


def test_issue21_a_test_that_asks_for_a_service_is_in_the_services_tier(request):
    """The scheduler knows the services tier by name; a test asking for PostgreSQL or Redis
    outside it would run beside the others (tests/conftest.py refuses it at collection)."""
    for item in request.session.items:
        if conftest.SERVICE_FIXTURES.intersection(item.fixturenames):
            assert item.get_closest_marker("services"), item.nodeid


@pytest.mark.parametrize("table", ["SERVICES", "SLOW", "SERIAL"])
def test_issue21_every_listed_test_exists(table):
    """A renamed or deleted test must not keep an entry that marks nothing."""
    for path, names in getattr(conftest, table).items():
        source = ROOT / path
        assert source.is_file(), f"{table}: {path} is not a file"
        defined = {
            node.name
            for node in ast.walk(ast.parse(source.read_text()))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert not set(names) - defined, f"{table}: {path} has no {sorted(set(names) - defined)}"


def test_issue21_the_slow_tier_is_the_forty_costliest_and_the_house_issues_own():
    # The forty of the first measurement, and eight tests that came with issues 17, 19 and 21.
    assert sum(len(names) for names in conftest.SLOW.values()) == 48


def test_issue21_the_whole_suite_runs_in_parallel_then_the_serial_tests_alone():
    first, second = dev.pytest_passes([], {})
    assert first == ["-n", "auto", "--dist", "loadgroup", "-m", "not serial"]
    assert second == ["-m", "serial", "-n", "0"]


def test_issue21_the_workers_come_from_the_environment():
    first, _ = dev.pytest_passes([], {"TEST_WORKERS": "3"})
    assert first[:2] == ["-n", "3"]


def test_issue21_fast_runs_the_unit_tier_only_in_one_parallel_pass():
    assert dev.pytest_passes(["--fast", "-q"], {}) == [["-n", "auto", "--dist", "loadgroup", "-m", FAST, "-q"]]
    assert dev.pytest_passes(["-m", "not slow", "--fast"], {}) == [
        ["-n", "auto", "--dist", "loadgroup", "-m", f"(not slow) and {FAST}"]
    ]


def test_issue21_every_serial_test_is_outside_the_unit_tier():
    """So `--fast` needs no serial pass."""
    for path, names in conftest.SERIAL.items():
        for name in names:
            tiers = conftest.cost_tiers(path, name)
            assert tiers & {"slow", "services"}, f"{path}::{name} is serial but in the unit tier"


def test_issue21_the_callers_paths_workers_and_markers_are_kept():
    first, second = dev.pytest_passes(["tests/engine", "-n", "1", "-mnot slow", "-x"], {})
    assert first == ["--dist", "loadgroup", "-m", "(not slow) and not serial", "tests/engine", "-n", "1", "-x"]
    assert second == ["-m", "(not slow) and serial", "tests/engine", "-n", "1", "-x", "-n", "0"]
    first, _ = dev.pytest_passes(["-m", "slow", "--dist", "load"], {})
    assert first == ["-n", "auto", "-m", "(slow) and not serial", "--dist", "load"]


def test_issue21_without_xdist_both_passes_run_in_this_process():
    first, second = dev.pytest_passes(["-p", "no:xdist"], {})
    assert first == ["-m", "not serial", "-p", "no:xdist"]
    assert second == ["-m", "serial", "-p", "no:xdist"]


@pytest.mark.parametrize(
    ("codes", "expected"),
    [((0, 0), 0), ((0, 5), 0), ((5, 0), 0), ((5, 5), 1), ((1, 0), 1), ((0, 1), 1), ((5, 1), 1), ((2,), 2)],
)
def test_issue21_either_failing_pass_fails_and_nothing_collected_is_a_failure(codes, expected):
    assert dev.combined_exit(list(codes)) == expected


def test_issue21_each_worker_has_a_redis_database_of_its_own():
    assert redis_url_for_worker("redis://127.0.0.1:6379/0", "gw0") == "redis://127.0.0.1:6379/1"
    assert redis_url_for_worker("redis://127.0.0.1:6379", "gw1") == "redis://127.0.0.1:6379/2"
    assert redis_url_for_worker("redis://:pw@cache:6380/0?timeout=5", "gw2") == "redis://:pw@cache:6380/3?timeout=5"


PROBE = """
import json, os, django
django.setup()
from django.conf import settings as s
print(json.dumps([s.REDIS_URL, s.CACHES["default"].get("LOCATION"), s.CELERY_BROKER_URL,
    s.CHANNEL_LAYERS["default"].get("CONFIG", {"hosts": [{}]})["hosts"][0].get("address"),
    os.environ.get("REDIS_URL"), os.environ.get("DURAK_TEST_REDIS_WORKER")]))
"""


def _settings_urls(**env) -> list[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DURAK_")) and k != "REDIS_URL"}
    environ.update(env, DJANGO_SETTINGS_MODULE="tests.ops.settings")
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=environ, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_issue21_a_workers_settings_use_its_redis_database():
    urls = _settings_urls(REDIS_URL="redis://127.0.0.1:6379/0", PYTEST_XDIST_WORKER="gw1")
    # The fifth: what the processes this worker starts inherit, with the mark that it is assigned.
    assert urls == ["redis://127.0.0.1:6379/2"] * 5 + ["gw1"]


def test_issue21_a_process_a_worker_starts_keeps_the_redis_url_it_was_given():
    """A test hands its subprocess a Redis of its choice; the subprocess inherits the
    worker's name but must not move to the worker's database."""
    worker = _settings_urls(PYTEST_XDIST_WORKER="gw1")
    assert not worker[0] and worker[-1] == "gw1", "a worker without Redis marks its processes too"
    child = _settings_urls(
        REDIS_URL="redis://127.0.0.1:7000/0", PYTEST_XDIST_WORKER="gw1", DURAK_TEST_REDIS_WORKER="gw1"
    )
    assert child == ["redis://127.0.0.1:7000/0"] * 5 + ["gw1"]


# --- The slow tier by measured cost (tests/costs.py, tests/costs.json) ---


def test_a_test_that_costs_a_fifth_of_a_second_or_more_leaves_the_unit_tier():
    costly = {test: cost for test, cost in conftest.COSTS.items() if cost >= costs.SLOW_SECONDS}
    assert "tests/engine/test_properties.py::test_every_table_option_combination" in costly
    for test in costly:
        path, name = test.split("::")
        assert "slow" in conftest.cost_tiers(path, name) or conftest.cost_tiers(path, name) & {"services", "browser"}
    cheap = min(conftest.COSTS, key=conftest.COSTS.get)
    assert conftest.COSTS[cheap] < costs.SLOW_SECONDS
    assert conftest.cost_tiers(*cheap.split("::")) == set()


def _clock(*readings):
    return iter(readings).__next__


def _item(*fixturedefs):
    return SimpleNamespace(
        fixturenames=[d.argname for d in fixturedefs],
        _fixtureinfo=SimpleNamespace(name2fixturedefs={d.argname: (d,) for d in fixturedefs}),
    )


def test_a_shared_fixture_is_charged_to_every_test_that_uses_it_and_the_session_to_none():
    club = SimpleNamespace(argname="club", scope="module")
    database = SimpleNamespace(argname="django_db_setup", scope="session")
    meter = costs.Meter(_clock(10.0, 15.5, 15.7, 20.0, 20.1, 30.0, 30.1))
    # The first test sets up the database (2 s) and the club (3 s) in a set-up of 5.5 s.
    meter.start()
    meter.fixture_set_up(database, 2.0)
    meter.fixture_set_up(club, 3.0)
    assert meter.phase(_item(database, club), "setup") == pytest.approx(3.5)
    assert meter.phase(_item(database, club), "call") == pytest.approx(0.2)
    # The next one finds both ready, and is charged the club all the same.
    meter.start()
    assert meter.phase(_item(database, club), "setup") == pytest.approx(3.1)
    # One that needs no club is not.
    meter.start()
    assert meter.phase(_item(database), "setup") == pytest.approx(0.1)


def _report(nodeid, seconds, *markers):
    return SimpleNamespace(
        nodeid=nodeid, user_properties=[(costs.PROPERTY, seconds)], keywords=dict.fromkeys(markers, 1)
    )


def test_recording_keeps_the_other_tests_figures_and_a_new_costly_test_is_named(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.py").write_text("")
    path = tmp_path / "tests" / "costs.json"
    recorded = {"tests/a.py::test_old": 0.5, "tests/a.py::test_faster_now": 0.3, "tests/gone.py::test_x": 1.0}
    path.write_text(json.dumps({"seconds": recorded}))
    ledger = costs.Ledger()
    for nodeid, seconds in [
        ("tests/a.py::test_new[1]", 0.15),
        ("tests/a.py::test_new[2]", 0.15),  # its parameter sets add up
        ("tests/a.py::test_faster_now", 0.01),
        ("tests/a.py::test_cheap", 0.02),
    ]:
        ledger.add(nodeid.split("[")[0], _report(nodeid, seconds))
        ledger.unit_tier.add(nodeid.split("[")[0])
    assert ledger.newly_costly(costs.load(path)) == [("tests/a.py::test_new", pytest.approx(0.3))]
    ledger.record(path, note="today")
    assert costs.load(path) == {"tests/a.py::test_old": 0.5, "tests/a.py::test_new": 0.3}
    assert json.loads(path.read_text())["last_recorded"] == "today"
