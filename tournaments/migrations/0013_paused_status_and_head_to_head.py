"""Paused becomes a status of its own (not a flag beside "running"), and the tie-break
"head_to_head" joins the names an event may order."""

from django.db import migrations, models

import tournaments.models


def paused_flag_to_status(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(paused=True, status="running").update(status="paused")


def paused_status_to_flag(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Tournament.objects.filter(status="paused").update(status="running", paused=True)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0012_house_bots_and_statuses"),
    ]

    operations = [
        migrations.RunPython(paused_flag_to_status, paused_status_to_flag),
        migrations.RemoveField(
            model_name="tournament",
            name="paused",
        ),
        migrations.AlterField(
            model_name="tournament",
            name="tiebreaks",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text=(
                    "tie-break names in order, from: buchholz, median_buchholz, sonneborn_berger, duraks, games, "
                    "seed, head_to_head; empty: the format's default"
                ),
                validators=[tournaments.models.validate_tiebreaks],
                verbose_name="tie-breaks",
            ),
        ),
    ]
