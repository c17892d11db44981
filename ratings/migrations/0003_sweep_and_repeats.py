"""Each variant's sweep of unrated games (django-celery-beat, editable in the admin),
and the index the repeated-games rule reads (docs/ratings.md)."""

from django.db import migrations, models


def create(apps, schema_editor):
    from ratings.services import ensure_sweep_schedule

    ensure_sweep_schedule(
        apps.get_model("django_celery_beat", "PeriodicTask"), apps.get_model("django_celery_beat", "IntervalSchedule")
    )


def remove(apps, schema_editor):
    from ratings.services import VARIANTS, sweep_name

    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[sweep_name(v) for v in VARIANTS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0002_schedule"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="ratedgame",
            index=models.Index(fields=["variant", "finished_at"], name="rated_game_by_finish"),
        ),
        migrations.RunPython(create, remove),
    ]
