"""The formats' lifecycles: how an event of each format starts, seats whoever is to play,
records a finished game, and knows it is over.

The round formats (Swiss, round robin, knockout) share one lifecycle: rounds started at
their times, each round's tables dealt their games, a round finished with its last table
(services.lifecycle, services.results). The arena (services.arena) has its own: one
round from its start to its end, a table dealt to whoever is free as soon as two are.

The event's services dispatch here (`of(event)`) at the few points where the formats
differ; everything else (windows, entries, check-in, the director's actions, absence)
is shared. The hooks import the services when called: the services import this module.
"""

from __future__ import annotations

from .models import Tournament


class RoundsLifecycle:
    """Swiss, round robin, knockout: rounds one after the other."""

    continuous = False

    def start(self, event: Tournament, now) -> list[str]:
        """Under the event's lock, at its start time: round one starts."""
        from .services import lifecycle

        return lifecycle.start_round(event, 1, now)

    def seat_free(self, tournament_id: int, now, failures: list, hold) -> list[str]:
        """After the event's own move: record the games whose nudge was lost, then deal each
        table's next game of the round (each step in a transaction of its own)."""
        from .services import lifecycle

        done = lifecycle.record_finished_games(tournament_id, now, failures, hold)
        return done + lifecycle.deal_due_games(tournament_id, now, failures, hold)

    def record_result(self, tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
        from .services import lifecycle

        return lifecycle.record_round_game(tournament_id, round_table_id, game, now)

    def is_over(self, event: Tournament, now) -> bool:
        """A round event ends with its last round (services.results._finish_round)."""
        return event.status == Tournament.Status.FINISHED

    def results_changed(self, event: Tournament, entrant_ids) -> None:
        """A result's place changed (a correction, a forfeit marked absent): the points follow
        the places already (services.results)."""

    def absent(self, event: Tournament, entrant_ids, now) -> list[str]:
        """Entrants marked absent in a game: withdrawn at ABSENCES_TO_WITHDRAW (tournaments.absence)."""
        from . import absence

        return absence.withdraw_the_absent(event, entrant_ids, now)


class ArenaLifecycle:
    """The arena: a fixed time; whoever finishes a game is seated again with others who are free."""

    continuous = True

    def start(self, event: Tournament, now) -> list[str]:
        from .services import arena

        return arena.start_arena(event, now)

    def seat_free(self, tournament_id: int, now, failures: list, hold) -> list[str]:
        from .services import arena

        return arena.arena_steps(tournament_id, now, failures, hold)

    def record_result(self, tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
        from .services import arena

        return arena.record_arena_game(tournament_id, round_table_id, game, now)

    def is_over(self, event: Tournament, now) -> bool:
        from .services import arena

        return arena.is_over(event, now)

    def results_changed(self, event: Tournament, entrant_ids) -> None:
        from .services import arena

        arena.recount(event, entrant_ids)

    def absent(self, event: Tournament, entrant_ids, now) -> list[str]:
        from .services import arena

        return arena.pause_the_absent(event, entrant_ids, now)


ROUNDS = RoundsLifecycle()

LIFECYCLES = {
    Tournament.Format.SWISS: ROUNDS,
    Tournament.Format.ROUND_ROBIN: ROUNDS,
    Tournament.Format.KNOCKOUT: ROUNDS,
    Tournament.Format.ARENA: ArenaLifecycle(),
}


def of(event: Tournament):
    """The event's lifecycle (by its format)."""
    return LIFECYCLES.get(event.format, ROUNDS)


def of_format(format_name: str):
    return LIFECYCLES.get(format_name, ROUNDS)
