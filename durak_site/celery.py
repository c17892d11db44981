"""The Celery app: configured from Django settings (CELERY_*), tasks from games/tasks.py.

With REDIS_URL, run `celery -A durak_site worker -Q default,podkidnoy,perevodnoy`
and `celery -A durak_site beat` (see Procfile). Without it, the site process
runs both in threads with the in-memory broker (durak_site/embedded.py).
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
    """Like Django around each request: keep persistent connections, drop broken ones.

    (Celery's own Django fix-up would close them around every task; settings
    raise CELERY_DB_REUSE_MAX so it only recycles them now and then.)
    """
    from django.db import close_old_connections

    close_old_connections()
