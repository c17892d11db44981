"""The table socket's heartbeat: how a page and the server notice a network that is gone.

A phone that loses its network does not close its socket: the frames it sends wait in
the browser, and the server hears nothing. So the page's script (static/js/table.js)
sends a beat, `{"heartbeat": "here"}`, every `beat_seconds()`, and `"away"` instead
while its tab is hidden (the browser then runs its timers once a minute at worst); the
server answers each beat with `ANSWER`, a frame that swaps nothing. The page counts
itself offline when a beat has no answer within `ANSWER_WAIT_BEATS` beats, or at once
when the browser says it is offline. The server counts a socket that has beaten once
and then falls silent for `silence_limit()` as one its player closed: his seat is
marked offline (so his one grace wait of the game applies, games.services.clock) and
the socket is closed. A client that never beats (a script, an old page) is never timed.
"""

from __future__ import annotations

from django.conf import settings

BEAT_SECONDS = 2.0  # default of settings.TABLE_HEARTBEAT_SECONDS
ANSWER_WAIT_BEATS = 2  # the page: a beat unanswered this long (4 s) means the network is gone
SILENT_BEATS = 4  # the server: this many beats heard from nobody (8 s), the page has given up before
AWAY_SILENCE_SECONDS = 90  # the server, for a hidden tab: its timers may fire once a minute
BEATS = ("here", "away")
ANSWER = "<!-- heartbeat -->"  # (a fragment with no element: htmx swaps nothing)
SILENT_CLOSE_CODE = 4408  # the socket the server closed for its silence


def beat_seconds() -> float:
    return float(getattr(settings, "TABLE_HEARTBEAT_SECONDS", BEAT_SECONDS))


def silence_limit(away: bool) -> float:
    """Seconds without a frame after which a beating socket counts as gone."""
    return max(AWAY_SILENCE_SECONDS, beat_seconds() * SILENT_BEATS) if away else beat_seconds() * SILENT_BEATS
