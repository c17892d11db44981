"""Issue 21, "Speed": the server's garbage collector is settled once start-up is over.

In the load test's slowest actions the event loop waited for full collections
that walked the whole heap, two thirds of it made at start-up and never freed
(docs/benchmarks-history.md, "The tail of the load test (issue 21)"). asgi.py freezes
that heap once everything of start-up exists, the embedded Celery threads
included, and raises the young generation's threshold (durak_site/collector.py).

Each case imports the ASGI application in a fresh interpreter, as daphne does,
so that what is frozen is the start-up of a server, not of this test run.
"""

import json
import os
import subprocess
import sys

from django.conf import settings

CHILD = """
import gc, json
import durak_site.asgi
from durak_site import embedded
running = embedded.running()
# gc.get_objects() lists the three generations, not the frozen (permanent) one.
walked = {id(o) for o in gc.get_objects()}
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "walked": len(walked),
    "threshold": list(gc.get_threshold()),
    "embedded": running is not None,
    "embedded_threads_frozen": running is not None and id(running) not in walked and id(running.worker) not in walked,
    "application_frozen": id(durak_site.asgi.application) not in walked,
}))
if running is not None:
    running.stop()
"""


def _start_the_site(tmp_path, **env) -> dict:
    """Import durak_site.asgi in a child on its own migrated SQLite file; return what it saw."""
    child_env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "GC_GEN0_THRESHOLD")}
    child_env.update(
        DJANGO_SETTINGS_MODULE="durak_site.settings",
        DEBUG="true",
        SQLITE_PATH=str(tmp_path / "site.sqlite3"),
        LOG_LEVEL="WARNING",
        **env,
    )
    manage = str(settings.BASE_DIR / "manage.py")
    subprocess.run(
        [sys.executable, manage, "migrate", "-v0"], env=child_env, check=True, timeout=120, cwd=settings.BASE_DIR
    )
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=settings.BASE_DIR,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_issue21_the_embedded_server_freezes_its_start_up_heap(tmp_path):
    seen = _start_the_site(tmp_path, CELERY_EMBEDDED="true")
    assert seen["embedded"]
    # Django, the apps and Celery: far more than the collector walks afterwards.
    assert seen["frozen"] > 50_000
    assert seen["frozen"] > 5 * seen["walked"]
    # Frozen last: the embedded worker and the wrapped application are in the frozen heap.
    assert seen["embedded_threads_frozen"]
    assert seen["application_frozen"]
    # The young generation's threshold is the setting's (default 10,000), the older ones Python's.
    assert seen["threshold"] == [10_000, 10, 10]


def test_issue21_gc_threshold_zero_keeps_pythons_own(tmp_path):
    seen = _start_the_site(tmp_path, CELERY_EMBEDDED="false", GC_GEN0_THRESHOLD="0")
    assert not seen["embedded"]
    assert seen["frozen"] > 50_000  # the freeze does not depend on the threshold
    assert seen["threshold"] == [700, 10, 10]
