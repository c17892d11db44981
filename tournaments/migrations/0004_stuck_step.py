import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0003_absence"),
    ]

    operations = [
        migrations.CreateModel(
            name="StuckStep",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "step",
                    models.CharField(
                        choices=[
                            ("advance", "moving the event on"),
                            ("record", "recording a game"),
                            ("deal", "dealing the next game"),
                        ],
                        default="advance",
                        max_length=10,
                    ),
                ),
                ("failures", models.PositiveIntegerField(default=0)),
                ("error", models.CharField(blank=True, max_length=300)),
                ("first_failed_at", models.DateTimeField()),
                ("last_failed_at", models.DateTimeField()),
                ("next_attempt_at", models.DateTimeField(db_index=True)),
                (
                    "round_table",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="tournaments.roundtable",
                    ),
                ),
                (
                    "tournament",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="stuck_steps",
                        to="tournaments.tournament",
                    ),
                ),
            ],
            options={
                "verbose_name": "stuck step",
                "verbose_name_plural": "stuck steps",
                "ordering": ["first_failed_at", "pk"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("tournament", "step", "round_table"), name="one_stuck_step_per_kind"
                    )
                ],
            },
        ),
    ]
