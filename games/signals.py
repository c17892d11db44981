"""Signals other apps connect to (in their `AppConfig.ready()`).

`game_finished`: a game's result is stored and committed. Sent by the play
service from `transaction.on_commit`, with keyword arguments
`game_id: int, table_id: int, variant: str, rated: bool`. The per-seat results
are then readable through `games.selectors` (`GameSeat.counted_place` is the
place ratings and standings use). Receivers only enqueue work (or make tiny
idempotent writes): the sender is the move path, which they must never fail
or slow down. Errors of receivers are logged, not raised (`send_robust`).

`table_page_will_render`: the table page (an ordinary request, off the event
loop) is being built. Sent with `send_robust`, keyword arguments
`table_id: int, request`. A receiver may return a dict with "html" (a safe
fragment shown above the table: what the table belongs to, with a link back)
and "title" (the page's title in place of "Table N"); None for nothing. The
games app knows nothing of what the fragments say.
"""

import django.dispatch

game_finished = django.dispatch.Signal()
table_page_will_render = django.dispatch.Signal()
