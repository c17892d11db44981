"""What one viewer sees of a live table: a pure function of a snapshot.

`table_context(snapshot, viewer_seat, events)` turns `selectors.table_snapshot`
into the template context of the table fragments, with no database and no
request: the websocket consumer calls it for every update from the snapshot
alone. `cards` draws the hand, the table and the buttons; `log` the event log;
`context` puts the whole page together.
"""

from .context import table_context, table_urls
from .log import LOG_LIMIT, log_line

__all__ = ["LOG_LIMIT", "log_line", "table_context", "table_urls"]
