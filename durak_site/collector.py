"""The garbage collector of a server process, settled once its start-up is over.

Measured (docs/benchmarks.md, "The tail of the load test (issue 21)"): in the
embedded server under the issue's load test, most of the slowest actions
(100-137 ms) waited for a full collection (generation 2) that walked the whole
heap, about 260,000 objects of which 165,000 were made at start-up (Django, the
apps, the URLconf, Celery) and never die. Two steps:

- `gc.freeze()` once start-up is over moves everything alive then into the
  permanent generation, which collections never walk: a full collection now
  walks only what was made since, two fifths of the work (garbage made at
  start-up is collected first, so none of it is kept for ever);
- a higher threshold for generation 0 (settings.GC_GEN0_THRESHOLD, 10,000
  tracked objects instead of Python's 700): the young collections, each of
  which stops every thread of the process, the event loop's among them, come
  about fourteen times less often; they free only cyclic garbage (reference
  counting frees the rest at once), so memory barely grows. 50,000 gave the
  same p99 but young collections of 60-110 ms during bursts of sign-ins.

The load test's p99 went from 31-117 ms (median 59) to 16-29 ms (median 21).
"""

from __future__ import annotations

import gc

from django.conf import settings


def settle_after_start() -> None:
    """Freeze the start-up heap and set the young generation's threshold (once per process)."""
    gc.collect()
    gc.freeze()
    threshold = settings.GC_GEN0_THRESHOLD
    if threshold > 0:
        _, older, oldest = gc.get_threshold()
        gc.set_threshold(threshold, older, oldest)
