"""python manage.py bench_pairing [--entrants 1024] [--table-size 4] [--rounds-history 5] [--seed 1]
[--repeat 3] [--out FILE]: how fast one Swiss round of a big field is seated.

Builds ``--rounds-history`` rounds with ``swiss_round`` and random results, then times seating the next
round ``--repeat`` times. The last line is exactly ``seconds=<fastest run> repeats=<pairs of table-mates
who met before> spread=<sum of each table's score spread> ideal=<that sum in plain score order>``.
``--out FILE`` writes the history, scores and seating as JSON so anyone can recount.
"""

from django.core.management.base import BaseCommand, CommandError

from bench.pairing import run


class Command(BaseCommand):
    help = "Measure Swiss seating: seconds to seat one round of a big field with history, its repeats and score spread."

    def add_arguments(self, parser):
        parser.add_argument("--entrants", type=int, default=1024, help="entrants in the field (default 1024)")
        parser.add_argument("--table-size", type=int, default=4, help="players at a table, 2 to 6 (default 4)")
        parser.add_argument("--rounds-history", type=int, default=5, help="rounds played before (default 5)")
        parser.add_argument("--seed", type=int, default=1, help="seed of the random results (default 1)")
        parser.add_argument("--repeat", type=int, default=3, help="timed runs; the fastest is reported (default 3)")
        parser.add_argument("--out", default=None, help="write history, scores and seating as JSON to this file")

    def handle(self, *args, entrants, table_size, rounds_history, seed, repeat, out, **options):
        if not 2 <= table_size <= 6:
            raise CommandError("--table-size must be from 2 to 6.")
        if entrants < 2:
            raise CommandError("--entrants must be at least 2.")
        if rounds_history < 0:
            raise CommandError("--rounds-history must not be negative.")
        if repeat < 1:
            raise CommandError("--repeat must be at least 1.")
        run(
            entrants=entrants,
            table_size=table_size,
            rounds_history=rounds_history,
            seed=seed,
            repeat=repeat,
            out=out,
            write=self.stdout.write,
        )
