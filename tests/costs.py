"""What each test costs in CPU seconds, measured, and kept in tests/costs.json.

The `slow` tier is chosen by rule from these figures (tests/conftest.py): a test
whose measured cost is at least SLOW_SECONDS leaves the unit tier that
`dev.py test --fast` runs. The cost is CPU time (user + system, of the test's
process and of the processes it waited for), not wall time: the machine is
shared, and CPU time moves far less with its load. A test's cost is the sum over
its phases (set-up, call, tear-down) and its parameter sets, since the tiers
are given per test function. A fixture shared by a module (or class) is charged
in full to every test that uses it, whichever of them happens to set it up, so
that the choice does not depend on the order; a session's fixtures (the test
database, for one) are the run's cost, charged to no test.

`--record-costs` writes this run's figures into the file (run it over whole
tiers, e.g. `python3 dev.py test --fast --record-costs`); any run ends by
naming the tests of the unit tier that cost clearly more than SLOW_SECONDS
(NAMED_SECONDS) and are not in the file as costly yet, so that a new costly
test is noticed the first time it runs.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from pathlib import Path

import pytest

COSTS_FILE = Path(__file__).resolve().parent / "costs.json"
# A test that costs this much CPU or more belongs to the `slow` tier.
SLOW_SECONDS = 0.2
# A run names a test of the unit tier as costly from this much on: a test just under
# SLOW_SECONDS crosses it and back with the machine's load.
NAMED_SECONDS = SLOW_SECONDS * 1.25
# Cheaper tests are not written to the file (they would only make it long).
KEPT_SECONDS = 0.05
PROPERTY = "cpu_seconds"


def load(path: Path = COSTS_FILE) -> dict[str, float]:
    """{"tests/x/test_y.py::test_name": CPU seconds} as last recorded."""
    try:
        return json.loads(path.read_text())["seconds"]
    except FileNotFoundError:
        return {}


def is_costly(costs: dict[str, float], path: str, name: str) -> bool:
    return costs.get(f"{path}::{name}", 0.0) >= SLOW_SECONDS


def cpu_now() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class Meter:
    """The CPU time of each phase of the running test, in this process."""

    def __init__(self, clock=cpu_now):
        self.clock = clock
        self.mark = 0.0
        self.left_out = 0.0  # shared fixtures set up during this phase
        self.shared: dict[int, float] = {}  # id(fixture definition) -> CPU of its last set-up

    def start(self) -> None:
        self.mark, self.left_out = self.clock(), 0.0

    def fixture_set_up(self, fixturedef, seconds: float) -> None:
        if fixturedef.scope == "function":
            return
        self.left_out += seconds
        if fixturedef.scope != "session":
            self.shared[id(fixturedef)] = seconds

    def phase(self, item, when: str) -> float:
        """The phase's CPU seconds; a set-up's include the shared fixtures the test uses."""
        now = self.clock()
        seconds = now - self.mark - self.left_out
        if when == "setup":
            definitions = getattr(item, "_fixtureinfo", None)
            for name in item.fixturenames:
                for fixturedef in (definitions.name2fixturedefs.get(name) or ())[-1:] if definitions else ():
                    seconds += self.shared.get(id(fixturedef), 0.0)
        self.mark, self.left_out = now, 0.0
        return max(seconds, 0.0)


class Ledger:
    """This run's costs per test function, added up from the phases' reports (in a
    pytest-xdist run, the workers' reports reach the controller with their figures)."""

    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)
        self.unit_tier: set[str] = set()

    def add(self, test_id: str, report) -> None:
        for key, value in report.user_properties:
            if key == PROPERTY:
                self.seconds[test_id] += value

    def newly_costly(self, recorded: dict[str, float]) -> list[tuple[str, float]]:
        """Tests of the unit tier that cost NAMED_SECONDS or more here, and are not recorded as costly."""
        return sorted(
            (
                (test, cost)
                for test, cost in self.seconds.items()
                if test in self.unit_tier and cost >= NAMED_SECONDS and recorded.get(test, 0.0) < SLOW_SECONDS
            ),
            key=lambda pair: -pair[1],
        )

    def record(self, path: Path = COSTS_FILE, note: str = "") -> int:
        """Write this run's figures over the recorded ones (other tests' figures stay); the number written."""
        try:
            document = json.loads(path.read_text())
        except FileNotFoundError:
            document = {}
        root = path.resolve().parent.parent
        # (a test file since removed or renamed leaves no figure behind)
        kept = {
            test: cost for test, cost in document.get("seconds", {}).items() if (root / test.split("::")[0]).is_file()
        }
        for test, cost in self.seconds.items():
            if cost >= KEPT_SECONDS:
                kept[test] = round(cost, 3)
            else:
                kept.pop(test, None)
        document = {
            "about": "CPU seconds per test function (tests/costs.py); "
            f"tests costing {SLOW_SECONDS} s or more are in the slow tier. Written by --record-costs.",
            "last_recorded": note or document.get("last_recorded", ""),
            "seconds": dict(sorted(kept.items())),
        }
        path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        return len(self.seconds)


class Plugin:
    """Measures every test's phases and, at the end, records the costs or names the
    unit tier's tests that cost clearly more than SLOW_SECONDS and are not recorded yet."""

    def __init__(self, config, recorded: dict[str, float]):
        self.config = config
        self.recorded = recorded
        self.meter = Meter()
        self.ledger = Ledger()

    def pytest_runtest_logstart(self, nodeid, location):
        self.meter.start()

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        began = cpu_now()
        try:
            return (yield)
        finally:
            self.meter.fixture_set_up(fixturedef, cpu_now() - began)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        """Each phase's report carries its CPU time (in a pytest-xdist run, to the controller)."""
        report = yield
        report.user_properties.append((PROPERTY, self.meter.phase(item, call.when)))
        return report

    def pytest_runtest_logreport(self, report):
        test = report.nodeid.split("[")[0]
        self.ledger.add(test, report)
        if not {"browser", "services", "slow"}.intersection(report.keywords):
            self.ledger.unit_tier.add(test)

    def pytest_terminal_summary(self, terminalreporter):
        if hasattr(self.config, "workerinput"):
            return  # (the controller of a pytest-xdist run has every worker's figures)
        if self.config.getoption("record_costs"):
            count = self.ledger.record(note=f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load {_load()}")
            terminalreporter.write_line(f"tests/costs.json: the CPU costs of {count} tests recorded")
            return
        costly = self.ledger.newly_costly(self.recorded)
        if costly:
            terminalreporter.section("costly tests in the unit tier")
            terminalreporter.write_line(
                f"These cost over {SLOW_SECONDS} s of CPU and belong to the slow tier; "
                "`python3 dev.py test --fast --record-costs` records them:"
            )
            for test, cost in costly:
                terminalreporter.write_line(f"  {cost:6.2f} s  {test}")


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
