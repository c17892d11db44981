"""python manage.py bench_arena [--players 1000] [--table-size 4] [--minutes 60] [--seed 0] [--passes 7]
[--min-wait 5] [--seconds-per-action 2] [--sample-games 200]: how fast an arena seats its free players,
and how long they wait between games.

Times one ``arena_tables`` pass over ``--players`` free players (the median of ``--passes``), then
simulates ``--minutes`` of an arena with everyone present, a seating pass every second and game lengths
drawn from bot games at the table size (``bench/arena.py`` says how). The last line is exactly
``seconds=<pass> mean_wait_s=<n> p95_wait_s=<n> repeat_share=<n>``.
"""

from django.core.management.base import BaseCommand, CommandError

from bench.arena import SAMPLE_GAMES, SECONDS_PER_ACTION, run
from tournaments.formats.arena import MIN_WAIT_S


class Command(BaseCommand):
    help = "Measure arena seating: one pass over a big free field, then the waits and repeats of a simulated hour."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, default=1000, help="players in the arena (default 1000)")
        parser.add_argument("--table-size", type=int, default=4, help="players at a table, 2 to 6 (default 4)")
        parser.add_argument("--minutes", type=float, default=60, help="length of the simulated arena (default 60)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the field, the games and the seating")
        parser.add_argument("--passes", type=int, default=7, help="timed seating passes; the median is reported")
        parser.add_argument(
            "--min-wait", type=float, default=MIN_WAIT_S, help=f"min_wait_s of every pass (default {MIN_WAIT_S:g})"
        )
        parser.add_argument(
            "--seconds-per-action",
            type=float,
            default=SECONDS_PER_ACTION,
            help=f"assumed human seconds per game action (default {SECONDS_PER_ACTION:g})",
        )
        parser.add_argument(
            "--sample-games", type=int, default=SAMPLE_GAMES, help=f"bot games sampled (default {SAMPLE_GAMES})"
        )

    def handle(self, *args, **options):
        if not 2 <= options["table_size"] <= 6:
            raise CommandError("--table-size must be from 2 to 6.")
        if options["players"] < 2:
            raise CommandError("--players must be at least 2.")
        if options["minutes"] <= 0:
            raise CommandError("--minutes must be positive.")
        if options["passes"] < 1 or options["sample_games"] < 1:
            raise CommandError("--passes and --sample-games must be at least 1.")
        if options["min_wait"] < 0 or options["seconds_per_action"] <= 0:
            raise CommandError("--min-wait must not be negative and --seconds-per-action must be positive.")
        run(
            players=options["players"],
            table_size=options["table_size"],
            minutes=options["minutes"],
            seed=options["seed"],
            passes=options["passes"],
            min_wait_s=options["min_wait"],
            seconds_per_action=options["seconds_per_action"],
            sample_games=options["sample_games"],
            write=self.stdout.write,
        )
