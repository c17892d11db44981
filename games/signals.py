"""Signals other apps connect to (in their `AppConfig.ready()`).

`game_finished`: a game's result is stored and committed. Sent by the play
service from `transaction.on_commit`, with keyword arguments
`game_id: int, table_id: int, variant: str, rated: bool`. The per-seat results
are then readable through `games.selectors` (`GameSeat.counted_place` is the
place ratings and standings use). Receivers only enqueue work (or make tiny
idempotent writes): the sender is the move path, which they must never fail
or slow down. Errors of receivers are logged, not raised (`send_robust`).
"""

import django.dispatch

game_finished = django.dispatch.Signal()
