"""The nightly backup (django-celery-beat's database scheduler, editable in the admin)."""

from django.db import migrations

NIGHTLY_NAME = "backups: nightly backup of the database"
NIGHTLY_TASK = "backups.tasks.nightly_backup"


def create(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    # 03:10, a quiet hour, before the ratings' nightly recomputation (04:30).
    nightly, _ = CrontabSchedule.objects.get_or_create(
        minute="10", hour="3", day_of_week="*", day_of_month="*", month_of_year="*"
    )
    PeriodicTask.objects.get_or_create(
        name=NIGHTLY_NAME,
        defaults={"task": NIGHTLY_TASK, "crontab": nightly, "queue": "batch", "enabled": True},
    )


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NIGHTLY_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("backups", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create, remove)]
