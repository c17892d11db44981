"""Entrants by name: the one read every page, export and notice of an event names them by."""

from __future__ import annotations

from ..models import Tournament


def entrant_names(event: Tournament) -> dict[int, str]:
    names = {}
    for e in event.entrants.select_related("user", "pair__player_one", "pair__player_two"):
        if e.pair_id:
            names[e.pk] = f"{e.pair.player_one.username} & {e.pair.player_two.username}"
        else:
            names[e.pk] = e.user.username
    return names
