"""The event's nudges are sent to the workers by the tasks' names (tournaments.notify imports
no tasks, which call the services): each name is a task the workers know."""

from celery import current_app

from tournaments import notify, tasks


def test_every_task_the_notices_send_by_name_is_a_registered_task():
    registered = current_app.tasks
    for name in (notify.ADVANCE_EVENT_TASK, notify.ARENA_SEATING_PASS_TASK):
        assert name in registered, f"{name} is sent by name but no such task is registered"
    assert registered[notify.ADVANCE_EVENT_TASK].run == tasks.advance_event.run
    assert registered[notify.ARENA_SEATING_PASS_TASK].run == tasks.arena_seating_pass.run


def test_a_nudge_goes_to_the_variants_queue_at_its_time(monkeypatch):
    sent = []
    monkeypatch.setattr(current_app, "send_task", lambda name, **options: sent.append((name, options)))
    notify.nudge_event(7, "perevodnoy", "later")
    notify.nudge_arena(8, "podkidnoy")
    assert sent == [
        (notify.ADVANCE_EVENT_TASK, {"args": [7], "eta": "later", "queue": "perevodnoy"}),
        (notify.ARENA_SEATING_PASS_TASK, {"args": [8], "eta": None, "queue": "podkidnoy"}),
    ]
