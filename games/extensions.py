"""What other apps show on the table and record pages, without `games` knowing them.

An app registers its providers in its `AppConfig.ready()`; the table asks them
at every render, so an app removed from INSTALLED_APPS simply shows nothing.

- `seat_marks(table, user_ids) -> {user_id: {"text", "note", "kind", "href"}}`: a short
  text next to a seated player's name (`kind`: its CSS class; `href`, optional: where
  it links, e.g. what the number means), e.g. a rating; at the table and in the lobby;
- `game_notes(table, game) -> [safe HTML]`: lines above the hand (e.g. each
  player's chances before the first move);
- `record_panels(request, game) -> [safe HTML]`: panels of a finished game's
  record page (e.g. the player's review of his game);
- `move_marks(request, game) -> {step: safe HTML}`: a note after a move of the
  record's move list (e.g. the review's mark of that move);
- `profile_sections(request, player) -> [safe HTML]`: sections of a player's
  profile page (e.g. his events with place and points);
- `seat_actions(request, table, game, seat) -> [safe HTML]`: forms for the viewer's
  own seat on the table page (e.g. an arena's «Berserk» before his first move);
  asked by the page's request only (it may query), with the page's `table` and
  `game` dicts and the viewer's seat (None: a spectator);
- `rated_when_ended(ended, moves) -> bool`: whether a rated game ended without being
  played out (`Game.result["ended"]`: a forfeit, an adjudication, a claimed win) after
  `moves` moves still counts for the ratings; asked in the transaction that ends it
  (games.services.adjudication), so the game is never rated before it is decided.

The table's providers may query: they are asked once per render, never on the
event loop (a socket asks them in a worker thread before it renders, once per
change and language: `games.table.rendering.extras_of`), and what they answer
must be the same for every viewer; `table` and `game` are the context's plain
dicts. The record page's run in its request (`game`: the Game).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.utils.html import format_html

log = logging.getLogger(__name__)

_seat_marks: list[Callable] = []
_game_notes: list[Callable] = []
_record_panels: list[Callable] = []
_move_marks: list[Callable] = []
_profile_sections: list[Callable] = []
_seat_actions: list[Callable] = []
_rated_when_ended: list[Callable] = []


def register(
    *,
    seat_marks: Callable | None = None,
    game_notes: Callable | None = None,
    record_panels: Callable | None = None,
    move_marks: Callable | None = None,
    profile_sections: Callable | None = None,
    seat_actions: Callable | None = None,
    rated_when_ended: Callable | None = None,
) -> None:
    """Add providers (registering the same one twice keeps one)."""
    for found, provider in (
        (_seat_marks, seat_marks),
        (_game_notes, game_notes),
        (_record_panels, record_panels),
        (_move_marks, move_marks),
        (_profile_sections, profile_sections),
        (_seat_actions, seat_actions),
        (_rated_when_ended, rated_when_ended),
    ):
        if provider is not None and provider not in found:
            found.append(provider)


def rated_when_ended(ended: dict, moves: int) -> bool:
    """Whether every app that rates games still counts one that ended this way (none: it does).
    A provider that fails counts it out: a game is rated only when that was decided."""
    for provider in _rated_when_ended:
        try:
            if not provider(ended, moves):
                return False
        except Exception:
            log.exception("rated_when_ended of %s failed", provider)
            return False
    return True


def seat_marks(table: dict, user_ids) -> dict:
    marks: dict = {}
    ids = [user_id for user_id in user_ids if user_id is not None]
    if not ids:
        return marks
    for provider in _seat_marks:
        try:
            marks.update(provider(table, ids) or {})
        except Exception:  # another app's failure must not take the table down
            log.exception("seat marks of %s failed", provider)
    return marks


def game_notes(table: dict, game: dict | None) -> list:
    notes = []
    if not game:
        return notes
    for provider in _game_notes:
        try:
            notes.extend(provider(table, game) or ())
        except Exception:
            log.exception("game notes of %s failed", provider)
    return notes


def record_panels(request, game) -> list:
    panels = []
    for provider in _record_panels:
        try:
            panels.extend(provider(request, game) or ())
        except Exception:
            log.exception("record panels of %s failed", provider)
    return panels


def move_marks(request, game) -> dict:
    marks: dict = {}
    for provider in _move_marks:
        try:
            for step, html in (provider(request, game) or {}).items():
                marks[step] = format_html("{}{}", marks.get(step, ""), html)
        except Exception:
            log.exception("move marks of %s failed", provider)
    return marks


def profile_sections(request, player) -> list:
    sections = []
    for provider in _profile_sections:
        try:
            sections.extend(provider(request, player) or ())
        except Exception:  # another app's failure must not take the profile down
            log.exception("profile sections of %s failed", provider)
    return sections


def seat_actions(request, table: dict, game: dict | None, seat: int | None) -> list:
    actions = []
    if seat is None or not game:
        return actions
    for provider in _seat_actions:
        try:
            actions.extend(provider(request, table, game, seat) or ())
        except Exception:  # another app's failure must not take the table down
            log.exception("seat actions of %s failed", provider)
    return actions
