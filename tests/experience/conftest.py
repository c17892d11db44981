"""tests/experience/inner runs only in its own subprocess (test_concurrent_play_now.py)."""

import os

collect_ignore = [] if os.environ.get("DURAK_INNER_TESTS") == "1" else ["inner"]
