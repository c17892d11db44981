"""Rendering the table fragments: the same templates serve the page and the socket.

Every fragment is a top-level element with a fixed id; over the socket it
carries `hx-swap-oob`, so htmx's ws extension swaps it into the page:

- `#table-state`   the felt: seats, table, stock, own hand, buttons, result, seating
- `#table-log`     the recent events, redacted for the viewer
- `#table-error`   the last refusal (empty after an accepted frame)
- `#chat-messages` new chat lines are appended to it (`hx-swap-oob="beforeend"`);
                   on (re)connect the whole recent chat replaces it
"""

from functools import lru_cache

from django.template.loader import render_to_string
from django.utils import translation

STATE_TEMPLATE = "games/table/partials/state.html"
LOG_TEMPLATE = "games/table/partials/log.html"
ERROR_TEMPLATE = "games/table/partials/error.html"
CHAT_APPEND_TEMPLATE = "games/table/partials/chat_append.html"
CHAT_HISTORY_TEMPLATE = "games/table/partials/chat_history.html"


def live_fragments(context: dict, language: str, csrf_token: str = "") -> str:
    """State and log of one viewer, as out-of-band swaps."""
    context = {**context, "oob": True, "csrf_token": csrf_token}
    with translation.override(language):
        return render_to_string(STATE_TEMPLATE, context) + render_to_string(LOG_TEMPLATE, context)


@lru_cache(maxsize=256)
def error_fragment(message: str, language: str) -> str:
    """The refusal line (empty: cleared after every accepted frame); the same text, the same HTML."""
    with translation.override(language):
        return render_to_string(ERROR_TEMPLATE, {"oob": True, "error": message})


def chat_fragment(message: dict, language: str) -> str:
    with translation.override(language):
        return render_to_string(CHAT_APPEND_TEMPLATE, {"message": message})


def chat_history_fragment(messages: list[dict], language: str) -> str:
    """The table's recent chat, replacing the list: what a (re)connecting socket missed."""
    with translation.override(language):
        return render_to_string(CHAT_HISTORY_TEMPLATE, {"chat_messages": messages})
