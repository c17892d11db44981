"""Writes of the tournaments app: pairs, entries, and running an event.

Every `do_*` is one transaction. The event's own row is locked
(`select_for_update`) by everything that moves the event on, so a repeated or
late Celery nudge and a director's click are applied one after the other, and
the second sees what the first did: starting round 3 twice seats nobody twice
(and the unique (tournament, number) of Round stands behind it).

The writes are split by what they act on; each module's docstring says what it holds.
They stand on two floors (the `tournaments-floors` contract in pyproject.toml):

- the drivers, below the format objects (tournaments.event_formats) that call them: `base`
  (the event's lock), `director` (who directs, what each status allows, the log,
  announcements), `pairs`, `setup` (rules, points, creating and editing an event), `entries`
  (registration, waiting list, check-in, withdrawals), `seating` (the format's seating,
  drafts), `results` (recording games, closing tables and rounds, eliminations), `rounds`
  (a round started, its games recorded and dealt), `steps` (failing steps and their
  backoff), `absence` (withdrawn after two absences), `arena` (the arena's seating passes,
  results, pause and berserk) and `live_seating` (a round under way seated again);
- the workflows, above them, which reach a format's hooks through tournaments.registry:
  `lifecycle` (the event moved on by time and by the director, the sweep) and `corrections`.

The reads they need are tournaments.selectors. They import each other without a cycle
(the `services-acyclic` contract). Callers use this package (`services.do_register(...)`),
which re-exports each module's public names.
"""

from __future__ import annotations

from games.services import tables as game_tables  # exposed for tests that patch the deal

from .. import notify  # exposed for tests that patch the notices
from ..errors import TournamentRefused
from ..selectors.seating import draft_is_stale, eligible_entrants, entrant_ratings, meetings_before, scores_of
from .arena import (
    arena_round,
    do_arena_leave,
    do_arena_pause,
    do_arena_return,
    do_arena_seating_pass,
    do_berserk,
)
from .base import current_round
from .corrections import MOST_POINTS, do_correct_places, do_correct_result, most_points, parse_points
from .director import (
    ACTION_REFUSALS,
    ANNOUNCEMENT_LIMIT,
    BEFORE_START,
    DIRECTORS_GROUP,
    LIVE,
    STATUS_REFUSALS,
    TRANSITIONS,
    UNDER_WAY,
    allowed,
    can_direct,
    do_announce,
    do_remove_announcement,
)
from .entries import (
    GAME_ESTIMATE,
    checkin_open,
    do_add_late_entrant,
    do_check_in,
    do_register,
    do_reinstate,
    do_request_bye,
    do_set_checked_in,
    do_unregister,
    do_withdraw,
    expected_duration,
    is_full,
    overlapping_event,
    registration_open,
)
from .lifecycle import (
    do_advance_event,
    do_cancel_event,
    do_delete_event,
    do_finish_event,
    do_publish_event,
    do_record_game,
    do_reopen_event,
    do_retry_stuck_step,
    do_set_paused,
    do_start_now,
    do_start_round,
    do_sweep_event,
    due_event_ids,
)
from .live_seating import do_reseat_started_round, do_seat_house_bot, do_substitute_entrant
from .pairs import do_answer_invitation, do_dissolve_pair, do_invite_partner
from .results import REQUESTED_BYE_SHARE, do_end_table_round, requested_bye_points
from .seating import do_draft_round, do_publish_round, do_reseat_round, seating_of, total_rounds
from .setup import (
    do_copy_event,
    do_create_event,
    do_edit_event,
    next_minute,
    points_table,
    rules_of,
    schedule_nudges_on_commit,
    validate_event,
)
from .steps import RETRY_FIRST, RETRY_MAX, StepFailed, note_failure, retry_pause

__all__ = [
    "game_tables",
    "notify",
    "TournamentRefused",
    "current_round",
    "TRANSITIONS",
    "do_invite_partner",
    "do_answer_invitation",
    "do_dissolve_pair",
    "rules_of",
    "points_table",
    "validate_event",
    "do_copy_event",
    "next_minute",
    "do_create_event",
    "do_edit_event",
    "schedule_nudges_on_commit",
    "registration_open",
    "checkin_open",
    "do_register",
    "is_full",
    "GAME_ESTIMATE",
    "expected_duration",
    "overlapping_event",
    "do_unregister",
    "do_check_in",
    "do_request_bye",
    "do_add_late_entrant",
    "do_withdraw",
    "do_reinstate",
    "do_set_checked_in",
    "entrant_ratings",
    "eligible_entrants",
    "meetings_before",
    "scores_of",
    "seating_of",
    "draft_is_stale",
    "do_draft_round",
    "do_publish_round",
    "total_rounds",
    "do_reseat_round",
    "do_reseat_started_round",
    "do_substitute_entrant",
    "do_seat_house_bot",
    "REQUESTED_BYE_SHARE",
    "requested_bye_points",
    "MOST_POINTS",
    "parse_points",
    "most_points",
    "do_correct_result",
    "do_correct_places",
    "do_end_table_round",
    "do_advance_event",
    "do_start_round",
    "do_record_game",
    "do_start_now",
    "do_set_paused",
    "do_cancel_event",
    "do_reopen_event",
    "do_finish_event",
    "do_publish_event",
    "do_delete_event",
    "due_event_ids",
    "RETRY_FIRST",
    "RETRY_MAX",
    "StepFailed",
    "retry_pause",
    "note_failure",
    "do_sweep_event",
    "do_retry_stuck_step",
    "can_direct",
    "DIRECTORS_GROUP",
    "BEFORE_START",
    "LIVE",
    "UNDER_WAY",
    "STATUS_REFUSALS",
    "ACTION_REFUSALS",
    "allowed",
    "ANNOUNCEMENT_LIMIT",
    "do_announce",
    "do_remove_announcement",
    "arena_round",
    "do_arena_seating_pass",
    "do_arena_pause",
    "do_arena_return",
    "do_arena_leave",
    "do_berserk",
]
