"""Concurrency on the default database: real threads on a file SQLite database.

The in-memory test database cannot hold two writers at once, so the threaded
tests (tests/scaleout/inner/test_concurrency.py) run in a subprocess whose
test database is a file (tests/scaleout/inner/conftest.py), in WAL mode with
BEGIN IMMEDIATE, as the site runs.
"""

from tests.scaleout.runner import run_inner


def test_simultaneous_moves_on_sqlite():
    counts = run_inner({}, "test_concurrency.py")
    assert counts.get("passed", 0) == 3 and not counts.get("skipped"), counts
