"""Each variant remembers the rating model its stored ratings were computed with
(`ratings.model.MODEL_FINGERPRINT`). A variant with games already rated does not
know it: it is left empty, so the first sweep recomputes it under the current
model. A variant with nothing rated yet holds no rating of any model: it gets
the current fingerprint (nothing to recompute)."""

from django.db import migrations, models


def forward(apps, schema_editor):
    from ratings import model as rating_model

    VariantState = apps.get_model("ratings", "VariantState")
    RatedGame = apps.get_model("ratings", "RatedGame")
    for state in VariantState.objects.all():
        if not RatedGame.objects.filter(variant=state.variant).exists():
            state.model_fingerprint = rating_model.MODEL_FINGERPRINT
            state.save(update_fields=["model_fingerprint"])


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0004_recompute_on_batch"),
    ]

    operations = [
        migrations.AddField(
            model_name="variantstate",
            name="model_fingerprint",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop),
    ]
