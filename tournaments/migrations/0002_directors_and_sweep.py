"""The "Tournament directors" group and the periodic sweep that runs events."""

from django.db import migrations

DIRECTORS = "Tournament directors"
SWEEP_NAME = "tournaments: sweep events"
SWEEP_TASK = "tournaments.tasks.sweep_events"
SWEEP_SECONDS = 5
MODELS = ["tournament", "entrant", "round", "roundtable", "result", "pair"]


def create(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")
    group, _ = Group.objects.get_or_create(name=DIRECTORS)
    # Permissions are normally created after migrate; make sure they exist now.
    for model in MODELS:
        content_type, _ = ContentType.objects.get_or_create(app_label="tournaments", model=model)
        for action in ("add", "change", "delete", "view"):
            permission, _ = Permission.objects.get_or_create(
                content_type=content_type,
                codename=f"{action}_{model}",
                defaults={"name": f"Can {action} {model}"},
            )
            group.permissions.add(permission)

    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every, _ = IntervalSchedule.objects.get_or_create(every=SWEEP_SECONDS, period="seconds")
    PeriodicTask.objects.update_or_create(
        name=SWEEP_NAME,
        defaults={"task": SWEEP_TASK, "interval": every, "queue": "default", "enabled": True},
    )


def remove(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=DIRECTORS).delete()
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=SWEEP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(create, remove)]
