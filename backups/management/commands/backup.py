"""python manage.py backup [PATH]: copy the site's database (SQLite or PostgreSQL) to a file."""

from django.core.management.base import BaseCommand, CommandError

from backups import services


class Command(BaseCommand):
    help = "Back up the database the site uses, safely while it runs (SQLite's backup API, or pg_dump)."

    def add_arguments(self, parser):
        parser.add_argument(
            "path",
            nargs="?",
            default=None,
            help="a file, or a folder for a file named by the time (default BACKUP_DIR)",
        )

    def handle(self, *args, path=None, **options):
        try:
            run = services.do_backup(path)
        except services.BackupRefused as refusal:
            raise CommandError(str(refusal)) from None
        except Exception as exc:
            raise CommandError(f"The backup failed: {exc}") from exc
        self.stdout.write(f"backed up to {run.path} ({run.size} bytes)")
