"""Fair clocks (issue 17): the sweep's heartbeat, a seat's player offline since, and the
one extra wait of a game a disconnected player gets."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_sweep_due_games_schedule"),
    ]

    operations = [
        migrations.CreateModel(
            name="SweepHeartbeat",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("beat_at", models.DateTimeField()),
                (
                    "resumed_at",
                    models.DateTimeField(blank=True, help_text="when the sweep last found an outage over", null=True),
                ),
            ],
        ),
        migrations.AddField(
            model_name="gameseat",
            name="grace_used",
            field=models.BooleanField(
                default=False, help_text="the one extra wait of this game a disconnected player gets before a timeout"
            ),
        ),
        migrations.AddField(
            model_name="tableseat",
            name="offline_since",
            field=models.DateTimeField(
                blank=True,
                help_text="when this seat's player closed his last socket; empty while he is there",
                null=True,
            ),
        ),
    ]
