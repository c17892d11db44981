"""A tournament round's table says so itself: its seats are fixed (issue 16, point 1).

The tables opened before this field are known by `rematch=False`, which only
the tournaments app ever set."""

from django.db import migrations, models


def mark_event_tables(apps, schema_editor):
    apps.get_model("games", "Table").objects.filter(rematch=False).update(managed_by_event=True)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_seat_seen_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="managed_by_event",
            field=models.BooleanField(
                default=False, help_text="a tournament round's table: its seats are fixed, nobody joins or leaves it"
            ),
        ),
        migrations.RunPython(mark_event_tables, migrations.RunPython.noop),
    ]
