"""What other apps show on a club's page, without `clubs` knowing them.

An app registers its providers in its `AppConfig.ready()` (tournaments its events and
hall of fame, later battles and leagues theirs); the club page asks them in order.

- `club_sections(request, club) -> [safe HTML]`: sections of the club's page, each
  rendered by its app's own partial; a provider must answer in a fixed number of
  queries whatever the club's size (the page's query count is tested).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

_club_sections: list[Callable] = []


def register(*, club_sections: Callable | None = None) -> None:
    if club_sections is not None and club_sections not in _club_sections:
        _club_sections.append(club_sections)


def club_sections(request, club) -> list[str]:
    sections: list[str] = []
    for provider in _club_sections:
        sections.extend(provider(request, club))
    return sections
