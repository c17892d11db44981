"""Live-table benchmark: real websockets against a daphne this command starts.

    python manage.py bench_tables                 # 2 and 6 seats, the default run
    python manage.py bench_tables --seats 2 --samples 300 --rates 100,200,400
    python manage.py bench_tables --no-floor      # the site only, without the framework floor
    python manage.py bench_tables --floor-frame-bytes 0   # the floor with bare (small) frames

The measurement is `bench/tables.py` (what it measures and how: its
docstring, and docs/benchmarks.md); this command parses the options, runs it
in a child process with production-like settings, and prints the report. In
the same run, per table size, it measures the framework floor
(`bench/floor.py`) after the site and reports the site's share of it.
"""

from django.core.management.base import BaseCommand, CommandError

from bench import tables as bench


def numbers(text: str, kind=int) -> tuple:
    try:
        return tuple(kind(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise CommandError(f"expected comma-separated numbers, got {text!r}") from None


class Command(BaseCommand):
    help = "Benchmark live tables over real websockets against a daphne it starts."

    def add_arguments(self, parser):
        parser.add_argument("--seats", default="2,6", help="table sizes, comma-separated (default 2,6)")
        parser.add_argument("--samples", type=int, default=400, help="actions for the idle latency")
        parser.add_argument("--rates", default="", help="open-loop rates in actions/s (default: per table size)")
        parser.add_argument("--duration", type=float, default=4.0, help="seconds per rate / saturation step")
        parser.add_argument("--tables", type=int, default=0, help="tables for the rate and saturation runs")
        parser.add_argument("--debug", action="store_true", help="run daphne with DEBUG on (as dev.py serve)")
        parser.add_argument("--no-celery", action="store_true", help="no embedded Celery in the server")
        parser.add_argument("--json", default="", help="also write the results to this JSON file")
        parser.add_argument(
            "--no-floor", action="store_true", help="skip the framework floor (bench.floor) beside the site"
        )
        parser.add_argument(
            "--floor-frame-bytes",
            type=int,
            default=bench.DEFAULT_FLOOR_FRAME_BYTES,
            help=f"size of the floor's state frames (default {bench.DEFAULT_FLOOR_FRAME_BYTES}; 0: bare frames)",
        )

    def handle(self, *args, **options):
        try:
            chosen = bench.Options(
                seats=numbers(options["seats"]),
                samples=options["samples"],
                rates=numbers(options["rates"]),
                duration=options["duration"],
                tables=options["tables"],
                debug=options["debug"],
                celery=not options["no_celery"],
                json_path=options["json"],
                floor=not options["no_floor"],
                floor_frame_bytes=options["floor_frame_bytes"],
            )
            if not bench.inside():
                code = bench.relaunch(chosen, self.stdout.write)
                if code:
                    raise CommandError(f"the benchmark failed (exit {code})")
                return
            results = bench.measure(chosen, self.stdout.write)
        except bench.BenchFailed as failure:
            raise CommandError(str(failure)) from None
        self.stdout.write(bench.report(results))
