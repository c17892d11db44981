"""Load test of a running site: bot players over websockets, then a check of every move log.

    python manage.py loadtest --url http://127.0.0.1:8000 --tables 50 --seats 2 --duration 30 --pace 2

What it measures and how: `bench/loadtest.py` (its docstring) and
docs/benchmarks.md. The move logs are read from this command's database
(run it with the server's DATABASE_URL or SQLITE_PATH) or from --database-url.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bench import loadtest


class Command(BaseCommand):
    help = "Load a running site with websocket bot players; report latency, throughput and lost moves."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="the running site")
        parser.add_argument("--tables", type=int, default=10)
        parser.add_argument("--seats", type=int, default=2, help="players per table (2-6)")
        parser.add_argument("--duration", type=float, default=20.0, help="measured seconds")
        parser.add_argument("--pace", type=float, default=1.0, help="seconds between two actions of a table")
        parser.add_argument("--warmup", type=float, default=3.0, help="seconds of play before the measurement")
        parser.add_argument("--processes", type=int, default=2, help="client processes")
        parser.add_argument("--timeout", type=float, default=10.0, help="seconds an action may take")
        parser.add_argument("--signup", action="store_true", help="sign players up (default: guests)")
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--database-url", default="", help="the site's database, for the move-log check")
        parser.add_argument("--no-check", action="store_true", help="skip the move-log check")
        parser.add_argument("--json", default="", help="also write the results to this JSON file")
        parser.add_argument(
            "--pids", default="", help="comma-separated pids of server processes on this machine: report their CPU"
        )
        parser.add_argument("--check-only", default="", help=None)  # internal: a re-run that only checks

    def handle(self, *args, **options):
        if options["check_only"]:
            payload = json.loads(Path(options["check_only"]).read_text())
            self.stdout.write(json.dumps(loadtest.check_logs(payload["seen"], payload["unconfirmed"])))
            return
        try:
            settings = loadtest.Options(
                url=options["url"],
                tables=options["tables"],
                seats=options["seats"],
                duration=options["duration"],
                pace=options["pace"],
                warmup=options["warmup"],
                processes=options["processes"],
                timeout=options["timeout"],
                signup=options["signup"],
                seed=options["seed"],
                pids=tuple(int(p) for p in options["pids"].split(",") if p.strip()),
            )
            result = loadtest.run(settings, self.stdout.write)
            check = None
            if not options["no_check"]:
                payload = {"seen": result["seen"], "unconfirmed": result["unconfirmed"]}
                if options["database_url"]:
                    check = loadtest.rerun_check(options["database_url"], payload)
                else:
                    check = loadtest.check_logs(**payload)
        except loadtest.LoadFailed as failure:
            raise CommandError(str(failure)) from None
        if options["json"]:
            kept = {k: v for k, v in result.items() if k not in ("seen", "unconfirmed")}
            Path(options["json"]).write_text(json.dumps({**kept, "check": check}, indent=2))
        self.stdout.write(loadtest.report(result, check))
