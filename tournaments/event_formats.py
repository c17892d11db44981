"""The formats of an event, each one object (tournaments.registry.EventFormat): what it is and
how it runs. Registered when the app is ready; everything else asks `registry.of(event)`.

The round formats (Swiss, round robin, knockout) share one lifecycle: rounds started at their
times, each round's tables dealt their games, a round finished with its last table (the drivers
in services.rounds, services.results). The arena (services.arena) has its own: one round from
its start to its end, a table dealt to whoever is free as soon as two are. Their seatings are
the pure functions of tournaments.formats.

This module sits above the drivers whose functions the hooks call, and below the workflows
that call the hooks through the registry. A new format: docs/formats.md.
"""

from __future__ import annotations

from . import formats, registry, seating_groups, selectors
from .formats.third_place import is_semi_final
from .models import Entrant, Round, Tournament
from .selectors import seating
from .services import absence as absence_drivers
from .services import arena, results, rounds


class RoundFormat(registry.EventFormat):
    """Swiss, round robin, knockout: rounds one after the other."""

    def start(self, event: Tournament, now) -> list[str]:
        """Under the event's lock, at its start time: round one starts."""
        return rounds.start_round(event, 1, now)

    def seat_free(self, tournament_id: int, now, failures: list, hold) -> list[str]:
        """After the event's own move: record the games whose nudge was lost, then deal each
        table's next game of the round (each step in a transaction of its own)."""
        done = rounds.record_finished_games(tournament_id, now, failures, hold)
        return done + rounds.deal_due_games(tournament_id, now, failures, hold)

    def record_result(self, tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
        return rounds.record_round_game(tournament_id, round_table_id, game, now)

    def is_over(self, event: Tournament, now) -> bool:
        """A round event ends with its last round (services.results.finish_round)."""
        return event.status == Tournament.Status.FINISHED

    def results_changed(self, event: Tournament, entrant_ids) -> None:
        """The points follow the places already (services.results)."""

    def absent(self, event: Tournament, entrant_ids, now) -> list[str]:
        """Entrants marked absent in a game: withdrawn at ABSENCES_TO_WITHDRAW."""
        return absence_drivers.withdraw_the_absent(event, entrant_ids, now)


class Swiss(RoundFormat):
    name = Tournament.Format.SWISS.value
    label = Tournament.Format.SWISS.label
    requested_byes = True
    late_entry_under_way = True
    seats_by_score = True
    default_tiebreaks = ("buchholz", "median_buchholz", "sonneborn_berger", "duraks", "seed")

    def seat_round(self, event, number, entrants, ids, ratings):
        scores = seating.scores_of(event)
        return formats.swiss_round(
            ids,
            {pk: scores.get(pk, 0.0) for pk in ids},
            seating.history_before(event, number),
            event.entrants_per_table,
            ratings=ratings or None,
            byes_had={e.pk: e.byes for e in entrants},
            seed=event.pk * 1000 + number,
            apart=seating_groups.groups_of(event) or None,
        )


class RoundRobin(RoundFormat):
    name = Tournament.Format.ROUND_ROBIN.value
    label = Tournament.Format.ROUND_ROBIN.label
    # Everyone meets everyone: Buchholz says little; what the tied did against each other says
    # most (FIDE's recommendation for round robins: direct encounter first), then whom they beat.
    default_tiebreaks = ("head_to_head", "sonneborn_berger", "duraks", "games", "seed")

    def seat_round(self, event, number, entrants, ids, ratings):
        schedule = formats.round_robin_schedule(self._field(event, ids), event.entrants_per_table, seed=event.pk)
        if number > len(schedule):
            return None
        planned = schedule[number - 1]
        playing = set(ids)
        tables, byes = [], [pk for pk in planned.byes if pk in playing]
        for table in planned.tables:
            present = [pk for pk in table if pk in playing]
            if len(present) >= 2:
                tables.append(present)
            else:
                byes += present
        return formats.Seating(tables=tables, byes=byes, repeats=planned.repeats, flags=list(planned.flags))

    def total_rounds(self, event):
        """The schedule's rounds once round one fixed the field (at most the event's rounds)."""
        first = event.round_set.filter(number=1).first()
        if first is not None and first.tables.exists():
            field_size = len({pk for rt in first.tables.all() for pk in rt.entrants} | set(first.byes))
            schedule = formats.round_robin_schedule(list(range(field_size)), event.entrants_per_table, seed=event.pk)
            return min(event.rounds, len(schedule)) if event.rounds else len(schedule)
        return event.rounds

    @staticmethod
    def _field(event: Tournament, ids: list[int]) -> list[int]:
        """The field is fixed by round one: the schedule is rebuilt from the same list every round."""
        first = event.round_set.filter(number=1).first()
        if first is None or not first.tables.exists():
            return ids
        field_ids = {pk for rt in first.tables.all() for pk in rt.entrants} | set(first.byes)
        order = {e.pk: i for i, e in enumerate(event.entrants.order_by("registered_at", "pk"))}
        return [pk for pk in ids if pk in field_ids] + sorted(field_ids - set(ids), key=order.get)


class Knockout(RoundFormat):
    name = Tournament.Format.KNOCKOUT.value
    label = Tournament.Format.KNOCKOUT.label
    knockout = True
    third_place = True
    default_tiebreaks = ("duraks", "buchholz", "seed")
    bracket_template = "tournaments/partials/bracket.html"

    def seat_round(self, event, number, entrants, ids, ratings):
        seeds = {e.pk: e.seed for e in entrants if e.seed is not None}
        seating_ = formats.knockout_round(ids, event.entrants_per_table, seeds=seeds, round_number=number)
        third = self._third_place_table(event, number)
        if seating_ is None or third is None:
            return seating_
        # The third-place match is played alongside the final, at the table after it.
        return formats.Seating(
            tables=[*seating_.tables, third], byes=seating_.byes, repeats=seating_.repeats, flags=seating_.flags
        )

    def also_seated(self, event, number):
        return set(self._third_place_table(event, number) or ())

    def rounds_reached(self, event, entrants):
        """The two semi-final losers went out in the semi-final round; with a third-place match
        its winner ranks above its loser (half a round further: still below the runner-up)."""
        reached = super().rounds_reached(event, entrants)
        winner = self._third_place_winner(event)
        if winner in reached and reached[winner] is not None:
            reached[winner] += 0.5
        return reached

    def bracket(self, event):
        return selectors.bracket(event)

    def total_rounds(self, event):
        return None  # until one is left

    def is_last_round(self, event, round_):
        return event.entrants.filter(state=Entrant.State.ACTIVE, eliminated_in_round=None).count() <= 1

    def going_on(self, event, round_, table_results):
        # The final's round: the final alone decides (the third-place match sends nobody on).
        third = set(self._third_place_table(event, round_.number) or ())
        deciding = [places for places in table_results if set(places) != third]
        return set(formats.knockout_survivors(deciding, drop=1)) | set(round_.byes)

    @staticmethod
    def _third_place_table(event, number: int) -> list[int] | None:
        """Round `number`'s third-place match (the event's option, at tables of 2): the two losers
        of the round before it when that was the semi-final round of two tables; else None."""
        if not event.third_place_match or event.entrants_per_table != 2 or number < 2:
            return None
        semi = event.round_set.filter(number=number - 1, status=Round.Status.FINISHED).first()
        if semi is None:
            return None
        tables = sorted(semi.tables.all(), key=lambda rt: rt.number)
        if not tables or not is_semi_final(sum(len(rt.entrants) for rt in tables) + len(semi.byes)):
            return None
        return formats.third_place_match([rt.entrants for rt in tables], [results.table_places(rt) for rt in tables])

    def _third_place_winner(self, event) -> int | None:
        """The winner of the event's third-place match once it is played."""
        if not event.third_place_match:
            return None
        for round_ in event.round_set.filter(status=Round.Status.FINISHED).order_by("-number"):
            third = self._third_place_table(event, round_.number)
            if third is None:
                continue
            for rt in round_.tables.all():
                if set(rt.entrants) == set(third):
                    places = results.table_places(rt)
                    return min(places, key=places.get)
        return None


class Arena(registry.EventFormat):
    """The arena: a fixed time; whoever finishes a game is seated again with others who are free."""

    name = Tournament.Format.ARENA.value
    label = Tournament.Format.ARENA.label
    continuous = True
    # Everyone plays his own number of games against whoever was free: who won more, then
    # whom he outscored (the performance of his games), then fewer duraks.
    default_tiebreaks = ("wins", "sonneborn_berger", "duraks", "seed")
    rules_template = "tournaments/partials/arena_rules.html"

    def start(self, event: Tournament, now) -> list[str]:
        return arena.start_arena(event, now)

    def seat_free(self, tournament_id: int, now, failures: list, hold) -> list[str]:
        return arena.arena_steps(tournament_id, now, failures, hold)

    def record_result(self, tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
        return arena.record_arena_game(tournament_id, round_table_id, game, now)

    def is_over(self, event: Tournament, now) -> bool:
        return arena.is_over(event, now)

    def results_changed(self, event: Tournament, entrant_ids) -> None:
        arena.recount(event, entrant_ids)

    def absent(self, event: Tournament, entrant_ids, now) -> list[str]:
        return arena.pause_the_absent(event, entrant_ids, now)


SWISS = registry.register(Swiss())
ROUND_ROBIN = registry.register(RoundRobin())
KNOCKOUT = registry.register(Knockout())
ARENA = registry.register(Arena())
