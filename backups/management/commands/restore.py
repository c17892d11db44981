"""python manage.py restore PATH [--replace]: put a backup in place of the database's contents."""

from django.core.management.base import BaseCommand, CommandError

from backups import services


class Command(BaseCommand):
    help = (
        "Restore a backup made by `backup` into the database the site uses. Refuses a database that holds "
        "data unless --replace, and a truncated or foreign file; either way nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="a file written by `backup`")
        parser.add_argument(
            "--replace", action="store_true", help="replace the data the database holds (stop the site first)"
        )

    def handle(self, *args, path, replace=False, **options):
        try:
            services.do_restore(path, replace=replace)
        except services.BackupRefused as refusal:
            raise CommandError(str(refusal)) from None
        self.stdout.write(f"restored {path}; run `migrate` if the backup is older than the site")
