"""Entrants who should not share a table: the one seating constraint other apps may give an event.

An app that owns events of its own kind (a club battle owns its tournament) registers a provider
when it is ready: `register(provider)`, where `provider(event) -> {entrant id: group}` answers for
the events it knows and `{}` for the rest. The Swiss and the arena then keep each group's entrants
apart at the tables while that is possible, and as few together as possible otherwise
(`formats.apart`); the other formats, whose tables follow a schedule or a bracket, ignore it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable

log = logging.getLogger(__name__)

_providers: list[Callable] = []


def register(provider: Callable) -> None:
    if provider not in _providers:
        _providers.append(provider)


def groups_of(event) -> dict[int, Hashable]:
    """Entrant id -> group for `event`, from every provider (empty: no constraint)."""
    groups: dict[int, Hashable] = {}
    for provider in _providers:
        groups.update(provider(event) or {})
    return groups
