"""Recompute a variant's ratings from scratch: `manage.py recalc_ratings --variant podkidnoy`."""

from django.core.management.base import BaseCommand, CommandError

from ratings import services

BAR_WIDTH = 30


def progress_bar(done: int, total: int, width: int = BAR_WIDTH) -> str:
    filled = width if total == 0 else width * done // total
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


class Command(BaseCommand):
    help = "Recompute the ratings of a variant (or of every variant) from all its finished rated games."

    def add_arguments(self, parser):
        parser.add_argument("--variant", choices=services.VARIANTS, help="only this variant (default: all)")

    def handle(self, *args, **options):
        variants = [options["variant"]] if options["variant"] else list(services.VARIANTS)
        for variant in variants:
            self.stdout.write(f"{variant}:")

            def show(done, total):
                self.stdout.write("  " + progress_bar(done, total))

            try:
                count = services.recompute(variant, progress=show)
            except ValueError as error:
                raise CommandError(str(error)) from None
            if count == 0:
                self.stdout.write("  " + progress_bar(0, 0))
            self.stdout.write(f"{variant}: {count} games rated")
