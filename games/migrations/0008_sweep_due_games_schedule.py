"""The one-second sweep of due games (expired turn timers, bots to move, lost nudges)
as a row of django-celery-beat's database scheduler, editable in the admin.

It was declared in settings.CELERY_BEAT_SCHEDULE, which beat wrote over the row at
every start; a row that start left behind is kept (with any edit) under the new name.
"""

from django.db import migrations

SWEEP_NAME = "games: sweep due games (turn timers, bots)"
FORMER_NAME = "sweep-due-games"
SWEEP_TASK = "games.tasks.sweep_due_games"
SWEEP_SECONDS = 1
# A sweep still queued after this is stale: the next one is already due.
SWEEP_EXPIRES_SECONDS = 10


def register_sweep(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    if PeriodicTask.objects.filter(name=SWEEP_NAME).exists():
        return
    if PeriodicTask.objects.filter(name=FORMER_NAME, task=SWEEP_TASK).update(name=SWEEP_NAME):
        return
    every, _ = IntervalSchedule.objects.get_or_create(every=SWEEP_SECONDS, period="seconds")
    PeriodicTask.objects.create(
        name=SWEEP_NAME,
        task=SWEEP_TASK,
        interval=every,
        queue="default",
        expire_seconds=SWEEP_EXPIRES_SECONDS,
        enabled=True,
    )


def unregister_sweep(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=SWEEP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_table_managed_by_event"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(register_sweep, unregister_sweep)]
