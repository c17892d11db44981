"""Measure which rating model predicts simulated Durak results best (docs/ratings.md).

    python manage.py rating_study --games 20000 --players 200 --seed 1 --workers 2 --out study.json
    python manage.py rating_study --farming   (the repeated-games rule against farming)
    python manage.py rating_study --wide --clubs 5 --players 100 --games 3000 --workers 2 --out wide.json
    python manage.py rating_study --export site_games.jsonl   (the site's recorded games, for --site-games)
    python manage.py rating_study --wide --site-games site_games.jsonl
    python manage.py rating_study --tune-site   (the site's TrueSkill beta, tau and chance spread)
    python manage.py rating_study --sigmas   (how sigma falls: SETTLED_SIGMA, PROVISIONAL_SIGMA)

`--wide` is issue 19's study (docs/ratings.md, "The wider study"): several
independent clubs per generative world, every model tuned on a club of its own,
95 % intervals across clubs; `--engine-games N` adds the engine-played world
(N games per club, slow), `--site-games FILE` the site's own games.

The games are played once and cached (gzip JSON under /tmp), so the evaluation
can be re-run without playing them again. The last line names the winner.
"""

import json
import os
import platform
import sys
import time
from dataclasses import asdict

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
        wide = parser.add_argument_group("the wider study (--wide)")
        wide.add_argument("--wide", action="store_true", help="several clubs per world, every model, 95 %% intervals")
        wide.add_argument("--clubs", type=int, default=5, help="evaluation clubs per world (one more tunes)")
        wide.add_argument(
            "--worlds", default=",".join(study.GENERATIVE_WORLDS), help="generative worlds, comma-separated"
        )
        wide.add_argument("--quick", action="store_true", help="smaller tuning grids")
        wide.add_argument("--engine-games", type=int, default=0, help="add the engine-played world: games per club")
        wide.add_argument("--engine-clubs", type=int, default=2, help="engine-played evaluation clubs (one more tunes)")
        wide.add_argument("--site-games", default="", help="add the site's own games from an --export file")
        parser.add_argument(
            "--export", default="", help="write the site's recorded rated games (places in order) to this file"
        )
        parser.add_argument(
            "--tune-site",
            action="store_true",
            help="choose the site's TrueSkill beta, tau and chance spread on the generative worlds' tuning clubs",
        )
        parser.add_argument(
            "--ties",
            type=int,
            default=0,
            help="the site's tie treatment against the package's own draws on engine-played clubs of N games",
        )
        parser.add_argument(
            "--sigmas",
            action="store_true",
            help="how sigma falls in a simulated club (SETTLED_SIGMA, PROVISIONAL_SIGMA) and games until established",
        )

    def handle(self, *args, games, players, seed, workers, holdout, cache, fresh, out, farming=False, **options):
        if options.get("export"):
            return self.export(options["export"])
        if options.get("tune_site"):
            return self.tune_site(options, seed, workers)
        if options.get("sigmas"):
            return self.sigmas(players, games, seed)
        if options.get("ties"):
            return self.ties(options["ties"], players, seed, workers, options.get("clubs") or 3)
        if options.get("wide"):
            return self.wide(games, players, seed, workers, holdout, out, options)
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

    def tune_site(self, options, seed, workers):
        worlds = [w for w in options["worlds"].split(",") if w]
        # the wider study's tuning clubs (its default --players 100 --games 3000, seed --seed)
        outcome = study.tune_site(worlds, players=100, games=3000, seed=seed, workers=workers)
        head = " | ".join(f"{w}: spread, durak log-loss" for w in worlds)
        self.stdout.write(f"| beta | tau | draw probability | {head} | one spread for all | mean at it |")
        self.stdout.write("|---:|---:|---:|" + "---:|" * (len(worlds) + 2))
        for row in outcome["rows"]:
            cells = [f"{row['worlds'][w]['spread']:g}, {row['worlds'][w]['durak_log_loss']:.4f}" for w in worlds]
            self.stdout.write(
                f"| {row['beta']:g} | {row['tau']:.3g} | {row['draw_probability']:g} | "
                + " | ".join(cells)
                + f" | {row['spread']:g} | {row['mean']:.4f} |"
            )
        best = outcome["best"]
        self.stdout.write(
            f"best beta={best['beta']:g} tau={best['tau']:.4g} draw_probability={best['draw_probability']:g} "
            f"spread={best['spread']:g} mean_durak_log_loss={best['mean']:.4f}"
        )

    def sigmas(self, players, games, seed):
        from ratings import model as rating_model

        curve = study.sigma_after_games(players=players, games=games, seed=seed)
        self.stdout.write("| games | " + " | ".join(str(n) for n in curve) + " |")
        self.stdout.write("|---|" + "---:|" * len(curve))
        self.stdout.write("| median sigma | " + " | ".join(f"{c['median']:.2f}" for c in curve.values()) + " |")
        self.stdout.write("| 90th percentile | " + " | ".join(f"{c['p90']:.2f}" for c in curve.values()) + " |")
        self.stdout.write("| players | " + " | ".join(str(c["players"]) for c in curve.values()) + " |")
        counts = {kind: study.games_until_established(kind) for kind in study.ESTABLISHED_KINDS}
        self.stdout.write(
            f"games until established (sigma <= {rating_model.PROVISIONAL_SIGMA:g}): "
            + ", ".join(f"{kind}: {n}" for kind, n in counts.items())
        )

    def ties(self, n, players, seed, workers, clubs):
        """Engine-played clubs (cached like --wide's engine world): the tie treatments compared."""
        played = [
            study.engine_club(players, n, seed + k, workers, f"/tmp/rating_study_{n}_{players}_{seed + k}.json.gz")
            for k in range(1, clubs + 1)
        ]
        outcome = study.tie_treatments(played)
        for key, scores in outcome["rows"].items():
            losses = ", ".join(f"{s.durak_log_loss:.4f}" for s in scores)
            pairs = ", ".join(f"{s.pair_log_loss:.4f}" for s in scores)
            self.stdout.write(f"{key}: durak log-loss per club {losses}; pairwise log-loss {pairs}")
        for metric, (mean, half) in outcome["native_minus_averaged"].items():
            self.stdout.write(f"native draws minus averaged ties, {metric}: {mean:+.4f} ± {half:.4f}")
        self.stdout.write(f"games {outcome['games']}, of them with tied sides {outcome['games_with_ties']}")

    def export(self, path):
        """The site's rated games, every variant in finishing order, as the ratings read them
        (ratings.selectors.games_to_rate): one JSON line per game, sides of user ids and their ranks."""
        from ratings import selectors
        from ratings.ledger import game_teams

        written = 0
        with open(path, "w", encoding="utf-8") as f:
            for variant, _ in selectors.variants():
                for game in selectors.games_to_rate(variant):
                    teams = game_teams(game.seats)
                    if teams is None:
                        continue
                    sides = [[seat.user_id for seat in members] for members, _ in teams]
                    kind = "2v2" if len(sides) == 2 and all(len(side) == 2 for side in sides) else str(len(sides))
                    row = {"variant": variant, "kind": kind, "sides": sides, "ranks": [rank for _, rank in teams]}
                    f.write(json.dumps(row) + "\n")
                    written += 1
        self.stdout.write(f"exported {written} rated games to {path}")
        if written < 1000:
            self.stdout.write(
                f"only {written} games: too few to tell the models apart (the simulated clubs have thousands)"
            )

    def wide(self, games, players, seed, workers, holdout, out, options):
        if games < 50 or players < 6 or options["clubs"] < 1:
            raise CommandError("--wide needs --games >= 50, --players >= 6 and --clubs >= 1.")
        worlds = [w for w in options["worlds"].split(",") if w]
        unknown = [w for w in worlds if w not in study.GENERATIVE_WORLDS]
        if unknown:
            raise CommandError(f"unknown world(s) {', '.join(unknown)}; one of {', '.join(study.GENERATIVE_WORLDS)}")
        extra = {}
        if options["engine_games"]:
            n = options["engine_games"]
            clubs = [
                study.engine_club(players, n, seed + k, workers, f"/tmp/rating_study_{n}_{players}_{seed + k}.json.gz")
                for k in range(options["engine_clubs"] + 1)
            ]
            extra["engine"] = (clubs[0], clubs[1:])
        if options["site_games"]:
            try:
                club = study.site_club(options["site_games"])
            except (OSError, ValueError, KeyError) as exc:
                raise CommandError(f"cannot read {options['site_games']}: {exc}") from exc
            if len(club.games) < 10:
                raise CommandError(f"{options['site_games']} has {len(club.games)} games: at least 10 are needed")
            extra["site"] = (None, [club])
        started = time.perf_counter()
        outcome = study.wide_study(
            worlds,
            clubs=options["clubs"],
            players=players,
            games=games,
            seed=seed,
            quick=options["quick"],
            extra_clubs=extra,
            holdout=holdout,
            workers=workers,
            verbose=options.get("verbosity", 1) > 1,
        )
        seconds = time.perf_counter() - started
        best = study.wide_winner(outcome)
        self.stdout.write(study.format_wide(outcome))
        self.stdout.write("\nReliability (shown % / durak % (sides)), all evaluation clubs pooled:\n")
        keys = ["shipped", "shipped, per side", "previously shipped"]
        keys += [best["key"]] if best["key"] not in keys else []
        self.stdout.write(study.format_reliability(outcome, keys))
        self.stdout.write("\nThe same, 2v2 sides only:\n")
        self.stdout.write(study.format_reliability(outcome, keys, "pairs_reliability"))
        for world, data in outcome["worlds"].items():
            if "shipped" in data["tuned"]:
                spreads = data["tuned"]["shipped"]
                self.stdout.write(
                    f"{world}: the shipped ratings' best chance spread on the tuning club: "
                    f"{spreads['per_player']:g} with one noise per player, {spreads['per_side']:g} with one per side"
                )
        if "site" in outcome["worlds"]:
            self.stdout.write(
                f"\nsite: {outcome['worlds']['site']['games'][0]} recorded games, parameters tuned on "
                f"{outcome['worlds']['site']['tuned_on']}"
            )
        if out:
            report = {
                "command": " ".join(["python", "manage.py", "rating_study", *sys.argv[2:]]),
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "seconds": seconds,
                "winner": best,
                "worlds": {
                    world: {
                        "tuned": data["tuned"],
                        "rows": {
                            key: {
                                "name": row["name"],
                                "spread": row["spread"],
                                "clubs": [asdict(c) for c in row["clubs"]],
                            }
                            for key, row in data["rows"].items()
                        },
                    }
                    for world, data in outcome["worlds"].items()
                },
            }
            with open(out, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)
        self.stdout.write(
            f"winner={best['name']!r} durak_log_loss={best['durak_log_loss']:.4f} "
            f"beats_shipped={'yes' if best['beats_shipped'] else 'no'} seconds={seconds:.0f}"
        )
