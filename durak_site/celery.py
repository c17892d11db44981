"""The Celery app: configured from Django settings (CELERY_*), tasks from games/tasks.py.

With REDIS_URL the workers and beat are processes of their own, run and
restarted by supervisord (deploy/supervisord.conf, the same list in Procfile):
`worker -Q default,podkidnoy,perevodnoy` (live play only), `worker -Q batch`
(reviews, rating recomputations), one `worker -Q ratings-<variant> -c 1` per
variant, and `beat` with django-celery-beat's database scheduler
(docs/scaling.md, "Queues"). Without it, the site process runs a worker, a
batch worker and beat in threads with the in-memory broker
(durak_site/embedded.py).
"""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")

app = Celery("durak_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _reuse_healthy_db_connections(**kwargs):
    """Like Django around each request: return the connection (to psycopg's pool on
    PostgreSQL) or keep it (SQLite), and drop a broken one.

    (Celery's own Django fix-up would close them around every task; settings
    raise CELERY_DB_REUSE_MAX so it only recycles them now and then.)

    Not for a task run eagerly (`.apply()`): it runs in the caller's thread, on the
    caller's connection, maybe inside the caller's transaction; returning that
    connection to the pool would roll the caller's work back under it (Celery's own
    fix-up skips eager tasks for the same reason).
    """
    from django.db import close_old_connections

    task = kwargs.get("task")
    if task is not None and task.request.is_eager:
        return
    close_old_connections()
