"""python manage.py bench_battle [--clubs 50] [--players 1000] [--table-size 4] [--seed 0] [--passes 5]:
how fast one round of a club battle is seated with clubmates apart.

The field: ``--players`` players in ``--clubs`` clubs of uneven sizes (Pareto-drawn shares, as real
clubs are: a few large, many small), none larger than a quarter of the field, each at least one.
Times (the median of ``--passes``) a Swiss round two with the clubs apart (``swiss_round(...,
apart=...)``: round one played, scores drawn), and prints first one arena pass over the whole field
free (``arena_tables(..., apart=...)``). The last line is exactly
``seconds=<Swiss round> clubmates_together=<tables with two of one club> tables=<tables>``; the fewest
pairs of clubmates the sizes allow (``fewest_group_pairs``) is printed before it.
"""

from __future__ import annotations

import random
import statistics
import time

from django.core.management.base import BaseCommand, CommandError

from tournaments.formats import FreePlayer, arena_tables, fewest_group_pairs, swiss_round, table_sizes


def club_sizes(clubs: int, players: int, rng: random.Random) -> list[int]:
    cap = max(1, players // 4)
    if clubs * cap < players:
        raise CommandError("--clubs too few for --players with no club larger than a quarter of the field.")
    weights = [rng.paretovariate(1.2) for _ in range(clubs)]
    sizes = [1] * clubs
    while sum(sizes) < players:
        club = rng.choices(range(clubs), weights)[0]
        if sizes[club] < cap:
            sizes[club] += 1
    return sizes


def together(tables, club) -> int:
    return sum(1 for table in tables if len({club[e] for e in table}) < len(table))


def timed(passes: int, seat) -> tuple[float, list]:
    times, tables = [], None
    for _ in range(passes):
        start = time.process_time()
        tables = seat()
        times.append(time.process_time() - start)
    return statistics.median(times), tables


class Command(BaseCommand):
    help = "Measure the seating of a club battle's round with clubmates apart."

    def add_arguments(self, parser):
        parser.add_argument("--clubs", type=int, default=50, help="clubs in the battle (default 50)")
        parser.add_argument("--players", type=int, default=1000, help="players in all (default 1000)")
        parser.add_argument("--table-size", type=int, default=4, help="players at a table, 2 to 6 (default 4)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the field and the scores")
        parser.add_argument("--passes", type=int, default=5, help="timed seatings; the median is reported")

    def handle(self, *args, **options):
        clubs, players, size = options["clubs"], options["players"], options["table_size"]
        if not 2 <= size <= 6:
            raise CommandError("--table-size must be from 2 to 6.")
        if not 2 <= clubs <= players:
            raise CommandError("--clubs must be from 2 to --players.")
        if options["passes"] < 1:
            raise CommandError("--passes must be at least 1.")
        rng = random.Random(options["seed"])
        sizes = club_sizes(clubs, players, rng)
        club = {}
        for number, count in enumerate(sizes):
            for _ in range(count):
                club[len(club)] = number
        entrants = list(club)
        rng.shuffle(entrants)
        seats = table_sizes(players, size)
        self.stdout.write(
            f"clubs={clubs} players={players} largest={max(sizes)} smallest={min(sizes)} "
            f"fewest_clubmate_pairs={fewest_group_pairs(sizes, len(seats))}"
        )

        free = [FreePlayer(entrant=e, points=0.0, free_since=0.0) for e in entrants]
        arena_s, arena = timed(options["passes"], lambda: arena_tables(free, size, now=10.0, apart=club))
        self.stdout.write(
            f"arena_pass_seconds={arena_s:.3f} clubmates_together={together(arena, club)} tables={len(arena)}"
        )

        first = swiss_round(entrants, {}, [], size, seed=1, apart=club)
        scores = {e: float(rng.randint(0, size - 1)) for e in entrants}
        second_s, second = timed(
            options["passes"], lambda: swiss_round(entrants, scores, [first.tables], size, seed=2, apart=club)
        )
        self.stdout.write(f"swiss_round_two_repeats={second.repeats}")
        self.stdout.write(
            f"seconds={second_s:.3f} clubmates_together={together(second.tables, club)} tables={len(second.tables)}"
        )
