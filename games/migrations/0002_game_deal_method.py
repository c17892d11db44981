from django.db import migrations, models


class Migration(migrations.Migration):
    """Record how each game's deck was shuffled; games dealt before this are method 1."""

    dependencies = [
        ("games", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="deal_method",
            field=models.PositiveSmallIntegerField(
                default=1, help_text="how the seed shuffles the deck (docs/fairness.md): 1 legacy, 2 specified"
            ),
        ),
    ]
