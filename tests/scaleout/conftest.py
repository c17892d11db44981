"""tests/scaleout/inner runs only in a subprocess started by the outer tests.

Django reads its settings once per process, so the inner tests get theirs
(a file SQLite test database, or PostgreSQL and Redis) from the environment of
a fresh `python -m pytest tests/scaleout/inner` (see runner.py); the normal run
does not collect them.
"""

import os

collect_ignore = [] if os.environ.get("DURAK_INNER_TESTS") == "1" else ["inner"]
