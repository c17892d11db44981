"""The nightly recomputations move to the batch queue (docs/scaling.md, "Queues"):
rows still on their variant's ratings queue are moved; a queue set by hand stays."""

from django.db import migrations


def forward(apps, schema_editor):
    from ratings.services import VARIANTS, recompute_queue, schedule_name

    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for variant in VARIANTS:
        PeriodicTask.objects.filter(name=schedule_name(variant), queue=f"ratings-{variant}").update(
            queue=recompute_queue()
        )


def backward(apps, schema_editor):
    from ratings.services import VARIANTS, recompute_queue, schedule_name

    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    for variant in VARIANTS:
        PeriodicTask.objects.filter(name=schedule_name(variant), queue=recompute_queue()).update(
            queue=f"ratings-{variant}"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0003_sweep_and_repeats"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(forward, backward)]
