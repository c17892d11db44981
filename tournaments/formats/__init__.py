"""Tournament formats: pure functions from entrants, scores and history to a seating.

No Django, no I/O, deterministic for a given seed (like the engine). Entrants are int ids; a *table*
is a list of entrant ids in seat order; *history* is the previous rounds, each a list of tables.
Pairs (2v2) are one entrant each at a ``table_size`` 2 pairing, so these functions never see players.

- ``swiss_round``: one Swiss round at tables of 2-6.
- ``round_robin_schedule``: every round of a round robin.
- ``knockout_round`` / ``knockout_survivors``: a seeded bracket or table elimination.
- ``table_sizes``: balanced tables; ``default_points`` / ``points_for_places``: points by place.
- ``Seating``: what a format returns; ``FLAGS``: the codes in ``Seating.flags``.
- ``arena_tables`` / ``arena_score``: the arena's seating pass over free players and its scoring
  (``FreePlayer``, ``ArenaGame``, ``ArenaScore``; ``STREAK_AFTER``, ``BERSERK_BONUS``, ``MIN_WAIT_S``).
- ``double_elimination_bracket`` / ``double_elimination_state`` / ``double_elimination_order`` /
  ``double_elimination_view``: double elimination at tables of 2 (``MatchId``: a match's place).
- ``third_place_match`` / ``third_place_order``: a knockout's optional third-place match.
- ``seat_apart`` / ``group_pairs`` / ``fewest_group_pairs``: tables with groups (a club battle's
  clubs) kept apart, which ``swiss_round`` and ``arena_tables`` use when given ``apart``.
"""

from .apart import fewest_group_pairs, group_pairs, seat_apart
from .arena import (
    BERSERK_BONUS,
    MIN_WAIT_S,
    STREAK_AFTER,
    ArenaGame,
    ArenaScore,
    FreePlayer,
    arena_score,
    arena_tables,
)
from .double_elimination import (
    MatchId,
    double_elimination_bracket,
    double_elimination_order,
    double_elimination_state,
    double_elimination_view,
)
from .knockout import bracket_order, knockout_round, knockout_survivors
from .round_robin import round_robin_schedule
from .scoring import default_points, points_for_places
from .seating import FLAGS, Seating, count_repeats, meetings, table_sizes
from .swiss import swiss_round
from .third_place import third_place_match, third_place_order

__all__ = [
    "BERSERK_BONUS",
    "FLAGS",
    "MIN_WAIT_S",
    "STREAK_AFTER",
    "ArenaGame",
    "ArenaScore",
    "FreePlayer",
    "Seating",
    "arena_score",
    "arena_tables",
    "bracket_order",
    "count_repeats",
    "default_points",
    "knockout_round",
    "knockout_survivors",
    "meetings",
    "points_for_places",
    "round_robin_schedule",
    "swiss_round",
    "table_sizes",
    "MatchId",
    "double_elimination_bracket",
    "double_elimination_order",
    "double_elimination_state",
    "double_elimination_view",
    "third_place_match",
    "third_place_order",
    "fewest_group_pairs",
    "group_pairs",
    "seat_apart",
]
