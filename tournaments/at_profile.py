"""What the tournaments app shows on a player's profile (registered with
`games.extensions` in TournamentsConfig.ready): his finished events with place
and points."""

from django.template.loader import render_to_string

from . import archive


def profile_sections(request, player) -> list[str]:
    found = archive.player_events(player)
    if not found["total"]:
        return []
    return [render_to_string("tournaments/partials/profile_events.html", {**found, "player": player}, request=request)]
