from django.db import migrations, models
import django.utils.timezone


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="BackupRun",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("started_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("ok", models.BooleanField(default=False, help_text="the file was written whole and checked")),
                ("path", models.CharField(blank=True, max_length=1000)),
                ("size", models.BigIntegerField(default=0, help_text="bytes")),
                ("error", models.TextField(blank=True)),
            ],
            options={"ordering": ["-started_at", "-pk"]},
        ),
    ]
