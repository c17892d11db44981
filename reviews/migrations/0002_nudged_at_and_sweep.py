"""When a review's task was last sent, and the periodic sweep that sends it again when it
was lost (django-celery-beat's database scheduler, editable in the admin)."""

from django.db import migrations, models

SWEEP_NAME = "reviews: sweep waiting reviews"
SWEEP_TASK = "reviews.tasks.sweep_reviews"
SWEEP_SECONDS = 30


def create(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every, _ = IntervalSchedule.objects.get_or_create(every=SWEEP_SECONDS, period="seconds")
    PeriodicTask.objects.get_or_create(
        name=SWEEP_NAME,
        defaults={"task": SWEEP_TASK, "interval": every, "queue": "default", "enabled": True},
    )


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=SWEEP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.AddField(
            model_name="review",
            name="nudged_at",
            field=models.DateTimeField(
                blank=True,
                help_text="when its task was last sent (the sweep sends it again if nothing came of it)",
                null=True,
            ),
        ),
        migrations.RunPython(create, remove),
    ]
