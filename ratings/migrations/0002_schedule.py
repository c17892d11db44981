"""The nightly full recomputation per variant (django-celery-beat, editable in the admin)
and one state row per variant."""

from django.db import migrations


def create(apps, schema_editor):
    from ratings.services import VARIANTS, ensure_schedule

    ensure_schedule(
        apps.get_model("django_celery_beat", "PeriodicTask"), apps.get_model("django_celery_beat", "CrontabSchedule")
    )
    VariantState = apps.get_model("ratings", "VariantState")
    for variant in VARIANTS:
        VariantState.objects.get_or_create(variant=variant)


def remove(apps, schema_editor):
    from ratings.services import VARIANTS, schedule_name

    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name__in=[schedule_name(v) for v in VARIANTS]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create, remove)]
