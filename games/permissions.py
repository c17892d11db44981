"""Who may see a table and who plays at it: pure functions of a table snapshot.

`selectors.table_snapshot` describes a table and its game; the page view and
the live consumer decide from it, with no further query, who may watch
(`may_watch`) and which seat a person plays (`viewer_seat`; None: a spectator,
who sees no hand).
"""

from __future__ import annotations


def viewer_seat(snapshot: dict | None, user_id) -> int | None:
    """The seat `user_id` plays: in the current game, else at the table."""
    if not snapshot or user_id is None:
        return None
    game = snapshot.get("game")
    if game and game.get("status") == "playing":
        seats = game["seats"]
    else:
        seats = snapshot["seats"]
    for s in seats:
        if s.get("user_id") == user_id:
            return s["number"]
    if game and game.get("status") != "playing":
        for s in game["seats"]:  # a finished game's players still see their seat
            if s.get("user_id") == user_id:
                return s["number"]
    return None


def may_watch(snapshot: dict | None, user_id, invited_tables=()) -> bool:
    """Public tables: everyone. Private ones: their host, players and invited guests."""
    if not snapshot:
        return False
    table = snapshot["table"]
    if not table["is_private"]:
        return True
    if user_id is not None:
        if table.get("host_id") == user_id:
            return True
        seats = list(snapshot["seats"]) + list((snapshot.get("game") or {}).get("seats") or [])
        if any(s.get("user_id") == user_id for s in seats):
            return True
    try:
        invited = {int(t) for t in invited_tables or ()}
    except (TypeError, ValueError):
        invited = set()
    return table["id"] in invited


def may_see_record(game, user) -> bool:
    """A game's record (and replay, verification): public tables' games for everyone;
    private tables' games for the people who sat at that table, its host and staff."""
    table = game.table
    if not table.is_private:
        return True
    if user is None or not user.is_authenticated:
        return False
    if user.is_staff or table.host_id == user.pk:
        return True
    return game.seats.filter(user=user).exists() or table.seats.filter(user=user).exists()
