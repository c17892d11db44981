"""Memory of one server process holding idle sockets and finished games over a run.

    python manage.py bench_memory                                  # 1,000 sockets, 500 games, 10 minutes
    python manage.py bench_memory --duration 120 --sample 5 --games 100

The measurement is `bench/memory.py` (what and how: its docstring, and
docs/benchmarks.md); this command parses the options and runs it in a child
process with production-like settings.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bench import memory
from bench.loadtest import LoadFailed


class Command(BaseCommand):
    help = "Resident memory of one daphne holding idle sockets and finished games, sampled over a run."

    def add_arguments(self, parser):
        parser.add_argument("--sockets", type=int, default=1000, help="idle websockets to hold open")
        parser.add_argument("--games", type=int, default=500, help="finished games in the database")
        parser.add_argument("--duration", type=float, default=600.0, help="seconds to sample for")
        parser.add_argument("--sample", type=float, default=10.0, help="seconds between samples")
        parser.add_argument("--churn", type=int, default=4, help="tables that keep playing meanwhile")
        parser.add_argument("--pace", type=float, default=0.25, help="seconds between two moves of a churn table")
        parser.add_argument("--json", default="", help="also write the samples to this JSON file")

    def handle(self, *args, **options):
        try:
            settings = memory.Options(
                sockets=options["sockets"],
                games=options["games"],
                duration=options["duration"],
                sample=options["sample"],
                churn=options["churn"],
                pace=options["pace"],
                json_path=options["json"],
            )
            if not memory.inside():
                code = memory.relaunch(settings, self.stdout.write)
                if code:
                    raise CommandError(f"the benchmark failed (exit {code})")
                return
            result = memory.measure(settings, self.stdout.write)
        except LoadFailed as failure:
            raise CommandError(str(failure)) from None
        if settings.json_path:
            Path(settings.json_path).write_text(json.dumps(result, indent=2))
        self.stdout.write(memory.report(result))
