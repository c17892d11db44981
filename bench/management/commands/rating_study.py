"""Measure which rating model predicts simulated Durak results best (docs/ratings.md).

    python manage.py rating_study --games 20000 --players 200 --seed 1 --workers 2 --out study.json
    python manage.py rating_study --farming   (the repeated-games rule against farming)

The games are played once and cached (gzip JSON under /tmp), so the evaluation
can be re-run without playing them again. The last line names the winner.
"""

import json
import os
import platform
import sys
import time

from django.core.management.base import BaseCommand, CommandError

from bench import study


class Command(BaseCommand):
    help = "Simulate games between players of known strength and compare rating models on held-out games."

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=20_000)
        parser.add_argument("--players", type=int, default=200)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--workers", type=int, default=1, help="processes that play the games (at most 2 here)")
        parser.add_argument("--holdout", type=float, default=study.HOLDOUT, help="share of the last games predicted")
        parser.add_argument(
            "--cache", default="", help="games file (default /tmp/rating_study_<games>_<players>_<seed>.json.gz)"
        )
        parser.add_argument("--fresh", action="store_true", help="play the games again even if the cache exists")
        parser.add_argument("--out", default="", help="write the metrics as JSON to this file")
        parser.add_argument(
            "--farming",
            action="store_true",
            help="only the farming scenarios: what a second account that always loses gains, without and with "
            "the repeated-games rule",
        )

    def handle(self, *args, games, players, seed, workers, holdout, cache, fresh, out, farming=False, **options):
        if farming:
            rows = study.farming_table()
            self.stdout.write(study.format_farming(rows))
            if out:
                with open(out, "w", encoding="utf-8") as f:
                    json.dump({"farming": rows}, f, indent=1)
            return
        if games < 10:
            raise CommandError("--games must be at least 10.")
        if not 0 < holdout < 1:
            raise CommandError("--holdout must be between 0 and 1.")
        if workers < 1:
            raise CommandError("--workers must be at least 1.")
        try:
            population = study.make_population(players, seed, games)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        cache = cache or f"/tmp/rating_study_{games}_{players}_{seed}.json.gz"
        if os.path.exists(cache) and not fresh:
            population, records, meta = study.load_games(cache)
            self.stdout.write(f"games from {cache} (played in {meta.get('seconds', 0):.0f} s)")
        else:
            started = time.perf_counter()
            step = max(1, games // 20)

            def progress(done):
                if done % step == 0 or done == games:
                    self.stderr.write(f"\rplayed {done}/{games}", ending="")

            records = study.simulate(study.plan_games(population, games, seed), workers, progress)
            self.stderr.write("")
            seconds = time.perf_counter() - started
            meta = {"games": games, "players": players, "seed": seed, "workers": workers, "seconds": seconds}
            study.save_games(cache, population, records, meta)
            self.stdout.write(f"played {games} games in {seconds:.0f} s with {workers} worker(s); cached in {cache}")

        outcome = study.run_study(population, records, holdout, corrected=study.corrected_rate)
        best = outcome["winner"]
        self.stdout.write(json.dumps(outcome["summary"]))
        self.stdout.write(f"tuned on the games before the held-out part: {json.dumps(outcome['tuned'])}")
        self.stdout.write("\nHeld-out games:\n" + study.format_table(outcome["results"]))
        self.stdout.write("\nAccuracy / log-loss per table:\n" + study.format_kinds(outcome["results"]))
        self.stdout.write("\nTies (equal ratings before the game):\n" + study.format_ties(outcome["ties"]))
        if out:
            report = {
                "command": " ".join(["python", "manage.py", "rating_study", *sys.argv[2:]]),
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "meta": meta,
                "summary": outcome["summary"],
                "tuned": outcome["tuned"],
                "validation": [r.to_json() for r in outcome["validation"]],
                "results": [r.to_json() for r in outcome["results"]],
                "ties": outcome["ties"],
                "winner": best.name,
            }
            with open(out, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)
        self.stdout.write(
            f"winner={best.name!r} log_loss={best.log_loss:.4f} accuracy={best.accuracy:.4f} "
            f"games={len(records)} held_out_pairs={best.pairs}"
        )
