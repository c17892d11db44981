"""The "play now" queue, and the periodic housekeeping of games (issue 10).

The housekeeping task closes tables nobody will finish and forgets queue rows of
people who have gone; it is registered in django-celery-beat's database
scheduler here, as tournaments/migrations/0002 registers its sweep.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

HOUSEKEEPING_NAME = "games: housekeeping (idle tables, play-now queue)"
HOUSEKEEPING_TASK = "games.tasks.housekeeping"
HOUSEKEEPING_SECONDS = 60


def register_housekeeping(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every, _ = IntervalSchedule.objects.get_or_create(every=HOUSEKEEPING_SECONDS, period="seconds")
    PeriodicTask.objects.update_or_create(
        name=HOUSEKEEPING_NAME,
        defaults={"task": HOUSEKEEPING_TASK, "interval": every, "queue": "default", "enabled": True},
    )


def unregister_housekeeping(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=HOUSEKEEPING_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_game_deal_method"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.CreateModel(
            name="QueueEntry",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("variant", models.CharField(max_length=16)),
                ("players", models.PositiveSmallIntegerField()),
                ("partners", models.BooleanField(default=False)),
                ("rated", models.BooleanField(default=False)),
                (
                    "status",
                    models.CharField(
                        choices=[("waiting", "Waiting"), ("matched", "Seated"), ("left", "Left the queue")],
                        db_index=True,
                        default="waiting",
                        max_length=10,
                    ),
                ),
                ("created_at", models.DateTimeField(help_text="when this wait began")),
                ("seen_at", models.DateTimeField(help_text="when the person's page last asked")),
                (
                    "table",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="games.table",
                    ),
                ),
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="queue_entry",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["status", "variant", "players"], name="queue_waiting_kind")],
            },
        ),
        migrations.RunPython(register_housekeeping, unregister_housekeeping),
    ]
