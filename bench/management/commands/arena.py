"""python manage.py arena --a hard --b medium --variant podkidnoy --players 2 --games 2000

Two bot levels play the same deals with their seats swapped (duplicate
style), in parallel worker processes; prints A's wins, draws and losses with
95 % confidence intervals. The last line is `score=<share of games A did not
lose>` (a draw is not a loss), for scripts. Searching levels play on their
playout budget only (no clock), so a run is reproducible from its seed.
"""

import time

from django.core.management.base import BaseCommand, CommandError

from games import bots, engine
from games.bots.arena import match


class Command(BaseCommand):
    help = "Play two bot levels against each other on the same deals, seats swapped, and measure the difference."

    def add_arguments(self, parser):
        levels = [*bots.LEVELS, *bots.LEGACY_LEVELS]
        parser.add_argument("--a", required=True, choices=levels, help="the level measured")
        parser.add_argument("--b", required=True, choices=levels, help="its opponent")
        parser.add_argument("--variant", default="podkidnoy", choices=["podkidnoy", "perevodnoy"])
        parser.add_argument("--players", type=int, default=2)
        parser.add_argument("--partners", action="store_true", help="teams (4 or 6 players): A's seats are one team")
        parser.add_argument("--deck", type=int, default=36, choices=[24, 36, 52])
        parser.add_argument("--games", type=int, default=200, help="games in all, an even number (two per deal)")
        parser.add_argument("--workers", type=int, default=2, help="worker processes")
        parser.add_argument("--seed", default="0", help="the deals and the bots' seeds follow from it")
        parser.add_argument("--iterations-a", type=int, default=None, help="playouts per decision for a searching A")
        parser.add_argument("--iterations-b", type=int, default=None, help="playouts per decision for a searching B")

    def handle(self, *args, **options):
        try:
            rules = engine.Rules(
                variant=options["variant"],
                players=options["players"],
                partners=options["partners"],
                deck=options["deck"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        games = options["games"]
        if games < 2 or games % 2:
            raise CommandError("--games must be an even number of at least 2: each deal is played twice.")
        if options["workers"] < 1:
            raise CommandError("--workers must be at least 1.")
        for key in ("iterations_a", "iterations_b"):
            if options[key] is not None and options[key] < 1:
                raise CommandError(f"--{key.replace('_', '-')} must be at least 1.")
        a = (options["a"], options["iterations_a"])
        b = (options["b"], options["iterations_b"])
        deals = games // 2
        team = "teams" if rules.partners else "seats"
        self.stdout.write(
            f"arena: {_describe(a)} (A) against {_describe(b)} (B), {rules.variant}, {rules.players} players"
            f"{', partners' if rules.partners else ''}, {rules.deck} cards; {games} games ({deals} deals, "
            f"each played twice with the {team} swapped), {options['workers']} workers, seed {options['seed']}"
        )
        started = time.perf_counter()
        step = max(1, deals // 10)

        def progress(done, total):
            if done % step == 0 or done == total:
                self.stderr.write(f"  {done}/{total} deals, {time.perf_counter() - started:.0f} s")

        result = match(rules, a, b, deals, seed=options["seed"], workers=options["workers"], progress=progress)
        elapsed = time.perf_counter() - started
        n = result["games"]
        self.stdout.write(
            f"A wins {result['wins']} ({result['wins'] / n:.1%}), draws {result['draws']} ({result['draws'] / n:.1%}),"
            f" losses {result['losses']} ({result['losses'] / n:.1%}) of {n} games"
        )
        if result["unfinished"]:
            self.stdout.write(f"of the draws, {result['unfinished']} games had no end after 10,000 actions (a loop)")
        mean, low, high = result["score"]
        self.stdout.write(f"A's score, a draw counting 1/2: {mean:.3f} (95% CI {low:.3f} to {high:.3f})")
        mean, low, high = result["not_lost"]
        self.stdout.write(f"A did not lose: {mean:.3f} (95% CI {low:.3f} to {high:.3f})")
        self.stdout.write(f"time: {elapsed:.0f} s ({elapsed / n:.2f} s a game)")
        self.stdout.write(f"score={mean:.3f}")


def _describe(side: tuple) -> str:
    level, iterations = side
    if bots.LEVELS.get(level, {}).get("bot") is not bots.SearchBot:
        return level
    budget = iterations or bots.LEVELS[level]["options"]["iterations"]
    return f"{level} ({budget} playouts a decision)"
