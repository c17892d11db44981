"""Double elimination as an event format (the rules: docs/double-elimination.md; the pure bracket:
tournaments.formats.double_elimination).

A side (an entrant; in a pairs event a pair) is out after its second lost match. It runs on the
round formats' driver (services.rounds): each round of the event seats the matches the bracket
has ready, at tables of 2; the others sit the round out. Nothing about the bracket is stored:
the field is round one's, in seed order, and every match's winner is read back from the rounds
played, each table matched to the ready match of the same two sides. A table is decided as the
knockout decides it (services.results.table_places: more points, equal points the better seed,
who sits first). A side who is no longer active (withdrawn, disqualified) loses each match he is
not seated in until he is out, so the bracket's counts stay true.

Registered when the app is ready (TournamentsConfig.ready), like tournaments.event_formats.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import formats, registry
from .event_formats import RoundFormat
from .formats.double_elimination import Bracket, BracketState, MatchId
from .models import Entrant, Round, Tournament
from .selectors import entrant_names
from .services import results as results_driver


@dataclass(frozen=True)
class Played:
    """The bracket of an event and what its rounds decided so far."""

    bracket: Bracket
    results: dict[MatchId, int]
    state: BracketState


class DoubleElimination(RoundFormat):
    name = Tournament.Format.DOUBLE_ELIMINATION.value
    label = Tournament.Format.DOUBLE_ELIMINATION.label
    knockout = True
    table_sizes = (2,)
    pairs = True
    default_tiebreaks = ("duraks", "buchholz", "seed")
    elimination_rules_template = "tournaments/partials/double_elimination_rules.html"
    bracket_template = "tournaments/partials/double_elimination_bracket.html"

    # ------------------------------------------------------------------ rounds

    def seat_round(self, event, number, entrants, ids, ratings):
        """The matches ready now, each at a table (the better seed first); everyone else still in
        sits the round out. Round one draws the bracket from the seeds just fixed."""
        played = self.played(event, field=ids if number == 1 else None, before=number)
        if not played.state.ready:
            return None
        tables = [list(match.table) for match in played.state.ready]
        seated = {pk for table in tables for pk in table}
        return formats.Seating(tables=tables, byes=[pk for pk in ids if pk not in seated])

    def total_rounds(self, event):
        return None  # until the bracket has its champion

    def is_last_round(self, event, round_):
        state = self.played(event).state
        return state.finished or not state.ready

    def going_on(self, event, round_, table_results):
        """Everyone without a second loss; the side who lost his second match goes out."""
        played = self.played(event)
        return set(played.bracket.entrants) - set(played.state.out_in)

    # ------------------------------------------------------------------ reads

    def rounds_reached(self, event, entrants):
        """The bracket's stage of each side's second loss (a losers' round, or either final):
        sides out in the same losers' round share it, whichever round of the event it was."""
        played = self.played(event)
        out_in = played.state.out_in
        return {e.pk: played.bracket.stage(out_in[e.pk]) if e.pk in out_in else None for e in entrants}

    def bracket(self, event):
        """The winners' and losers' brackets and the finals, every slot kept, with names."""
        if not event.round_set.filter(number=1).exclude(status=Round.Status.SCHEDULED).exists():
            return None
        played = self.played(event)
        view = formats.double_elimination_view(played.bracket, played.results)
        names = entrant_names(event)

        def match(m):
            def side(pk):
                if pk is None:
                    return None
                won = None if m.winner is None or m.status != "played" else pk == m.winner
                return {"name": names.get(pk, "?"), "won": won}

            return {"code": str(m.id), "status": m.status, "sides": [side(pk) for pk in m.sides]}

        return {
            "winners": [
                {"number": i, "matches": [match(m) for m in column]} for i, column in enumerate(view.winners, 1)
            ],
            "losers": [{"number": i, "matches": [match(m) for m in column]} for i, column in enumerate(view.losers, 1)],
            "finals": [match(m) for m in view.finals],
            "champion": names.get(played.state.champion) if played.state.champion else None,
        }

    # ------------------------------------------------------------------ the bracket read back

    def played(self, event, *, field: list[int] | None = None, before: int | None = None) -> Played:
        """The event's bracket and results from its finished rounds (before round `before`, when
        given), the matches of sides no longer active decided against them."""
        if field is None:
            first = event.round_set.filter(number=1).prefetch_related("tables").first()
            seated = set(first.byes) if first else set()
            seated |= {pk for rt in (first.tables.all() if first else ()) for pk in rt.entrants}
            seeds = dict(event.entrants.filter(pk__in=seated).values_list("pk", "seed"))
            field = sorted(seated, key=lambda pk: (seeds[pk] is None, seeds[pk] or 0, pk))
        bracket = formats.double_elimination_bracket(field)
        active = set(event.entrants.filter(state=Entrant.State.ACTIVE).values_list("pk", flat=True))
        decided: dict[MatchId, int] = {}
        rounds = event.round_set.filter(status=Round.Status.FINISHED).order_by("number").prefetch_related("tables")
        if before is not None:
            rounds = rounds.filter(number__lt=before)
        for round_ in rounds:
            tables = {frozenset(rt.entrants): rt for rt in round_.tables.all()}
            state = _forfeit(bracket, decided, active, seated=tables.keys())
            for match in state.ready:
                rt = tables.get(frozenset(match.table))
                if rt is not None:
                    places = results_driver.table_places(rt)
                    decided[match.id] = min(places, key=places.get)
        return Played(bracket, decided, _forfeit(bracket, decided, active, seated=()))


def _forfeit(bracket: Bracket, decided: dict[MatchId, int], active: set[int], seated) -> BracketState:
    """The bracket after `decided`, each ready match not `seated` (a set of its two sides) with a
    side no longer active decided against him (both: against the worse seed), until none is left."""
    while True:
        state = formats.double_elimination_state(bracket, decided)
        forfeits = [m for m in state.ready if frozenset(m.table) not in seated and not set(m.table) <= active]
        if not forfeits:
            return state
        for m in forfeits:
            better, worse = m.table
            decided[m.id] = worse if better not in active and worse in active else better


DOUBLE_ELIMINATION = registry.register(DoubleElimination())
