"""python manage.py bench_engine [--seconds S | --games N] [--seed K]: engine speed.

Plays random full games of 2-player podkidnoy, 4-player perevodnoy with
partners and 6-player podkidnoy and prints games per second, microseconds
per legal_actions + act step and Game.copy() per second. The last line is
exactly `games_per_s_2p=<number>` (CI and docs/benchmarks.md read it).
"""

from django.core.management.base import BaseCommand, CommandError

from bench.engine import run


class Command(BaseCommand):
    help = "Measure the rules engine: random games per second, us per step, copies per second."

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=2.0, help="time spent on each table (default 2)")
        parser.add_argument(
            "--games", type=int, default=None, help="play exactly this many games per table instead of --seconds"
        )
        parser.add_argument("--seed", type=int, default=0, help="seed of the random player (default 0)")

    def handle(self, *args, seconds: float, games: int | None, seed: int, **options):
        if games is not None and games < 1:
            raise CommandError("--games must be at least 1.")
        if games is None and seconds <= 0:
            raise CommandError("--seconds must be positive.")
        run(seconds=seconds, games=games, seed=seed, write=self.stdout.write)
