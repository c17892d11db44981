"""The formats of an event, each one object: what it is (`EventFormat`'s properties) and how
it runs (its driver hooks). Everything that depends on the format asks the event's object
(`of(event)`, or `event.event_format` in a template) instead of comparing `event.format`.

This module is the lookup, at the bottom of the app: the reads, the drivers, the workflows and
the pages import it, and it imports none of them. The objects themselves are written in
`tournaments.event_formats`, above the drivers whose functions their hooks call, and registered
here when the app is ready (`TournamentsConfig.ready`). A new format: docs/formats.md.
"""

from __future__ import annotations

from typing import Any

# (Annotations only: this module imports nothing of the app, the models included, so that
# the models themselves can hand out their event's format object.)
Tournament = Entrant = Seating = Any

ROUND_TEMPLATE_RULES = "tournaments/partials/rules.html"


class EventFormat:
    """One format of event. The defaults are a round format's (rounds one after the other at
    their times); a format overrides what differs. Properties are read by the reads, the
    drivers, forms, pages, exports and print alike; hooks are called by the services."""

    #: The stored value of `Tournament.format` (a choice of the model: a new one needs its migration).
    name: str = ""
    #: Its translated name (the model choice's label).
    label = ""
    #: Knockout-like: an entrant goes out of the event; the standings order by the round reached
    #: (then points), a bye scores 0 and goes through, a withdrawn entrant cannot come back while
    #: it runs, and only the latest round can be corrected once the next one has started.
    knockout = False
    #: Continuous (the arena): one round from start to end, whoever is free is seated at once;
    #: its duration, berserk and board belong to it.
    continuous = False
    #: An entrant may ask in advance to sit out one round (a requested bye).
    requested_byes = False
    #: Late entrants may join while the event runs (from the next round).
    late_entry_under_way = False
    #: A seating by hand is flagged with who is pulled up or down by score.
    seats_by_score = False
    #: Table sizes the format can seat, and whether pairs (2v2) may enter.
    table_sizes: tuple[int, ...] = (2, 3, 4, 5, 6)
    pairs = True
    #: A knockout at tables of 2 may play a third-place match (the event's `third_place_match`).
    third_place = False
    #: The tie-breaks, in order, of an event that orders none of its own (standings.METRICS names).
    default_tiebreaks: tuple[str, ...] = ()
    #: The event page's rule-book partial, and the bracket partial (None: no bracket).
    rules_template = ROUND_TEMPLATE_RULES
    #: A knockout-like format: the rule book's lines on who goes on and how the standings order.
    elimination_rules_template = "tournaments/partials/knockout_rules.html"
    bracket_template: str | None = None

    # ------------------------------------------------------------------ seating (rounds)

    def seat_round(self, event: Tournament, number: int, entrants: list[Entrant], ids: list[int], ratings) -> Seating:
        """Round `number`'s seating of the eligible `entrants` (`ids` in seed order, `ratings`
        by entrant); None when the format has no such round."""
        raise NotImplementedError

    def total_rounds(self, event: Tournament) -> int | None:
        """Rounds the event plays (None: until one is left)."""
        return event.rounds

    def is_last_round(self, event: Tournament, round_) -> bool:
        """The round just finished was the event's last (the event finishes with it)."""
        return round_.number >= (self.total_rounds(event) or 0)

    def going_on(self, event: Tournament, round_, table_results: list[dict[int, int]]) -> set[int]:
        """A knockout-like format: who goes on after the round, from each table's places
        ({entrant: place}, equal totals broken by seat); the others go out in this round."""
        raise NotImplementedError

    def also_seated(self, event: Tournament, number: int) -> set[int]:
        """Entrants already out of the event who still play in round `number` (a knockout's
        third-place match): a seating keeps them though they are not eligible."""
        return set()

    # ------------------------------------------------------------------ reads

    def rounds_reached(self, event: Tournament, entrants) -> dict[int, float | None]:
        """A knockout-like format: how far each of `entrants` went, for the standings (more ranks
        higher; None: still in, or the winner). By default the round he went out in."""
        return {e.pk: e.eliminated_in_round for e in entrants}

    def bracket(self, event: Tournament) -> dict | None:
        """What `bracket_template` draws (None: nothing to draw yet)."""
        return None

    # ------------------------------------------------------------------ driver hooks

    def start(self, event: Tournament, now) -> list[str]:
        """Under the event's lock, at its start time: the event starts."""
        raise NotImplementedError

    def seat_free(self, tournament_id: int, now, failures: list, hold) -> list[str]:
        """After the event's own move: whoever is to play is dealt a game (steps of their own)."""
        raise NotImplementedError

    def record_result(self, tournament_id: int, round_table_id: int, game: dict, now) -> list[str]:
        """A finished game of the event's table, recorded."""
        raise NotImplementedError

    def is_over(self, event: Tournament, now) -> bool:
        """The event has played all it plays."""
        raise NotImplementedError

    def results_changed(self, event: Tournament, entrant_ids) -> None:
        """A result's place changed (a correction, a forfeit marked absent)."""

    def absent(self, event: Tournament, entrant_ids, now) -> list[str]:
        """Entrants marked absent in a game."""
        return []

    def __repr__(self):
        return f"<EventFormat {self.name}>"


FORMATS: dict[str, EventFormat] = {}


def register(event_format: EventFormat) -> EventFormat:
    """Add a format (once per name: a second one of the same name is a mistake, refused)."""
    known = FORMATS.get(event_format.name)
    if known is not None and known is not event_format:
        raise ValueError(f"the format {event_format.name!r} is registered twice")
    FORMATS[event_format.name] = event_format
    return event_format


def of_format(name: str) -> EventFormat:
    """The format object of that stored name; LookupError, naming it, for one not registered."""
    try:
        return FORMATS[name]
    except KeyError:
        raise LookupError(f"no event format {name!r} is registered (known: {', '.join(FORMATS)})") from None


def of(event: Tournament) -> EventFormat:
    """The event's format object."""
    return of_format(event.format)
