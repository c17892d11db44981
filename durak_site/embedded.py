"""One command, no outside services: a Celery worker and beat inside the site process.

Without REDIS_URL the broker is kombu's in-memory transport (`memory://`),
which only reaches consumers in the same process. So the site process
(daphne, started by `python3 dev.py serve`) runs, in daemon threads:

- the latency worker (`WorkController`, "solo" pool, no mingle/gossip/heartbeat,
  no remote control) consuming the queues "default", "podkidnoy" and
  "perevodnoy" (settings.WORKER_QUEUES: bot moves, turn timers, tournament
  steps, the sweeps) and the short `ratings-<variant>` ones;
- the batch worker, a second `WorkController` of the same kind in a thread of
  its own, consuming settings.BATCH_QUEUES ("batch": reviews, rating
  recomputations). Its tasks never wait in front of a bot move or a timer:
  the latency thread takes its next message as soon as it is free, and
  CPython hands the interpreter to a waiting thread every few milliseconds
  (sys.getswitchinterval), so a bot move runs beside a review part instead
  of after it (docs/scaling.md, "Queues");
- Celery beat (`celery.beat.EmbeddedService(thread=True)`) with the database
  scheduler: the periodic tasks the apps' data migrations created, as the admin
  left them (the 1-second `sweep_due_games` among them).

asgi.py calls `start_embedded_celery()` when settings.CELERY_EMBEDDED is true
(the default without REDIS_URL, never inside pytest). This is safe because
every task is idempotent and reads its work from the database.

The in-memory channel layer is built on asyncio queues that belong to the
server's event loop and are not thread-safe; a bot move made in the worker
or timer thread therefore hands its group_send to that loop
(`send_on_site_loop`, which `start_embedded_celery` registers with
games.services.notify), and `SiteLoopRecorder` notes that loop on every ASGI call.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading

log = logging.getLogger(__name__)

WORKER_THREAD_NAME = "celery-worker"
BATCH_THREAD_NAME = "celery-batch"

_lock = threading.Lock()
_running: EmbeddedCelery | None = None
_site_loop: asyncio.AbstractEventLoop | None = None


class EmbeddedCelery:
    """The worker, batch worker and beat threads of this process; `stop()` ends them."""

    def __init__(self, worker, worker_thread: threading.Thread, beat, batch_worker=None, batch_thread=None):
        self.worker = worker
        self.worker_thread = worker_thread
        self.beat = beat
        self.batch_worker = batch_worker
        self.batch_thread = batch_thread

    def stop(self, timeout: float = 10.0) -> None:
        """Each worker stops in its own thread: its loop sees Celery's shutdown flag
        (`celery.worker.state.should_stop`, what a worker's TERM handler sets) within
        one poll and closes its broker connection itself. Calling `worker.stop()` from
        here instead closed a Redis channel while the worker's thread still polled it,
        and the two threads' reads on one socket could wait for each other for ever."""
        global _running
        from celery.worker import state as worker_state

        if self.beat is not None:
            self.beat.stop()
        workers = [(w, t) for w, t in ((self.worker, self.worker_thread), (self.batch_worker, self.batch_thread)) if w]
        worker_state.should_stop = 0  # EX_OK: a warm shutdown, as on SIGTERM
        try:
            for _worker, thread in workers:
                if thread is not None:
                    thread.join(timeout)
        finally:
            worker_state.should_stop = None  # a later start in this process must run
        for worker, thread in workers:
            if thread is not None and thread.is_alive():
                # Not stopped in time: stop it from outside, without waiting on it here.
                log.warning("embedded Celery thread %s did not stop in %.0f s", thread.name, timeout)
                threading.Thread(target=worker.stop, name=f"{thread.name}-stop", daemon=True).start()
        with _lock:
            if _running is self:
                _running = None
        log.info("embedded Celery stopped")


def start_embedded_celery(
    *, beat: bool = True, queues=None, batch_queues=None, loglevel: str | None = None
) -> EmbeddedCelery:
    """Start the worker, batch worker (and beat) threads once per process; return them."""
    global _running
    from django.conf import settings

    from durak_site.celery import app
    from games.services import notify
    from ratings import services as rating_services

    with _lock:
        if _running is not None:
            return _running
        notify.set_group_sender(send_on_site_loop)
        # The ratings queues too (contract 6); in production they have their own workers.
        rating_queues = [rating_services.queue_for(variant) for variant in rating_services.VARIANTS]
        queues = list(queues or dict.fromkeys([*settings.WORKER_QUEUES, *rating_queues]))
        batch_queues = list(batch_queues if batch_queues is not None else settings.BATCH_QUEUES)
        if app.conf.broker_url == "memory://":
            # kombu warns that "memory://" names no host; there is none to name.
            logging.getLogger("kombu.connection").setLevel(logging.ERROR)
        # Remote control needs a fanout exchange, which the memory transport lacks;
        # one in-process worker has nobody to talk to anyway.
        app.conf.worker_enable_remote_control = False
        worker = _work_controller(app, "embedded", queues, loglevel or settings.LOG_LEVEL)
        if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
            # Lines per sweep (every second) would drown the site's own log.
            for name in ("celery.beat", "celery.worker.strategy", "celery.app.trace"):
                logging.getLogger(name).setLevel(logging.WARNING)
        worker_thread = threading.Thread(target=_run_worker, args=(worker,), name=WORKER_THREAD_NAME, daemon=True)
        worker_thread.start()
        batch_worker = batch_thread = None
        if batch_queues:
            batch_app = _second_app(app)
            batch_worker = _work_controller(batch_app, "embedded-batch", batch_queues, loglevel or settings.LOG_LEVEL)
            batch_thread = threading.Thread(
                target=_run_worker, args=(batch_worker,), name=BATCH_THREAD_NAME, daemon=True
            )
            batch_thread.start()
        beat_service = None
        if beat:
            from celery.beat import EmbeddedService

            beat_service = EmbeddedService(app, thread=True, scheduler_cls=app.conf.beat_scheduler)
            beat_service.start()
        _running = EmbeddedCelery(worker, worker_thread, beat_service, batch_worker, batch_thread)
        log.info(
            "embedded Celery started: worker thread consuming %s, batch thread %s, beat thread %s (broker %s)",
            ",".join(queues),
            ",".join(batch_queues) or "off",
            "running" if beat else "off",
            app.conf.broker_url.split("://")[0] + "://",
        )
        return _running


def running() -> EmbeddedCelery | None:
    return _running


def _second_app(app):
    """A second Celery app on the same configuration (and so the same in-process
    broker), for the batch worker: a worker selects its queues on its app
    (`app.amqp.queues`), so two workers of one app would both consume the last
    selection. Tasks are shared (`shared_task`); sending from either app reaches
    the same queues."""
    from celery import Celery

    second = Celery(app.main, set_as_current=False)
    second.config_from_object("django.conf:settings", namespace="CELERY")
    second.conf.worker_enable_remote_control = False
    second.autodiscover_tasks()
    return second


def _work_controller(app, name: str, queues: list[str], loglevel: str):
    """One in-process worker: solo pool (its tasks run in the calling thread)."""
    return app.WorkController(
        hostname=f"{name}-{os.getpid()}@{socket.gethostname()}",
        pool_cls="solo",
        concurrency=1,
        queues=queues,
        without_mingle=True,
        without_gossip=True,
        without_heartbeat=True,
        loglevel=loglevel,
    )


def _run_worker(worker) -> None:
    from django.db import connections

    try:
        worker.start()
    except Exception:
        log.exception("embedded Celery worker died")
    finally:
        connections.close_all()  # this thread's connections (they are per thread)


# ------------------------------------------------------------- the site's loop


def remember_site_loop(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Note the event loop the site's consumers (and the in-memory layer) live on."""
    global _site_loop
    _site_loop = loop or asyncio.get_running_loop()


class SiteLoopRecorder:
    """ASGI wrapper: remembers the server's event loop on every connection."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        global _site_loop
        loop = asyncio.get_running_loop()
        if _site_loop is not loop:
            _site_loop = loop
        return await self.app(scope, receive, send)


def send_on_site_loop(layer, group: str, message: dict) -> bool:
    """Have the site's event loop run `layer.group_send`, from any other thread.

    Tasks of the embedded worker run in its consumer or timer thread, with no
    event loop of their own; `async_to_sync` there would put the message into
    the in-memory layer's asyncio queues from a foreign loop, and a consumer
    waiting on them would not wake up. The send is queued on the loop and not
    waited for (loop callbacks run in order, so messages keep their order), so
    the thread that committed a move does not wait while the loop renders.
    Returns False when the caller should send as usual: no site loop is known
    (no connection yet, or not the embedded mode), or this is the loop's thread.
    """
    loop = _site_loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return False
    try:
        if asyncio.get_running_loop() is loop:
            return False
    except RuntimeError:
        pass  # no loop in this thread: the usual case
    loop.call_soon_threadsafe(_start_send, layer, group, message)
    return True


def _start_send(layer, group: str, message: dict) -> None:
    asyncio.ensure_future(layer.group_send(group, message)).add_done_callback(_report_failure)


def _report_failure(task: asyncio.Future) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("group_send failed", exc_info=task.exception())
