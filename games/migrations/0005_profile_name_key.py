import unicodedata

from django.conf import settings
from django.db import migrations, models

KEY_LENGTH = 255


def _name_key(name: str) -> str:
    # A frozen copy of games.services.accounts.name_key: a migration must not change with the code.
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def fill_name_keys(apps, schema_editor):
    """Every user gets a profile with his name's key; look-alikes already in the
    club (the oldest keeps the key) get "key#pk", so this never fails."""
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Profile = apps.get_model("games", "Profile")
    profiles = {p.user_id: p for p in Profile.objects.all()}
    taken: set[str] = set()
    changed, new = [], []
    for pk, username in User.objects.order_by("pk").values_list("pk", "username").iterator():
        key = _name_key(username)[:KEY_LENGTH]
        if key in taken:
            suffix = f"#{pk}"
            key = key[: KEY_LENGTH - len(suffix)] + suffix
        taken.add(key)
        profile = profiles.get(pk)
        if profile is None:
            new.append(Profile(user_id=pk, name_key=key))
        else:
            profile.name_key = key
            changed.append(profile)
    Profile.objects.bulk_update(changed, ["name_key"], batch_size=500)
    Profile.objects.bulk_create(new, batch_size=500)


class Migration(migrations.Migration):
    # The data step commits on its own: PostgreSQL will not alter a table with the
    # new profiles' foreign-key checks still pending in the same transaction.
    atomic = False

    dependencies = [
        ("games", "0004_table_rematch_and_seat_ready"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="name_key",
            field=models.CharField(max_length=KEY_LENGTH, null=True),
        ),
        migrations.RunPython(fill_name_keys, migrations.RunPython.noop, atomic=True),
        migrations.AlterField(
            model_name="profile",
            name="name_key",
            field=models.CharField(max_length=KEY_LENGTH, unique=True, db_index=True),
        ),
    ]
