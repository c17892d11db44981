"""What the friends app shows on a player's profile (registered with `games.extensions`
in FriendsConfig.ready): follow / unfollow, and mute / block, for a signed-up visitor."""

from django.template.loader import render_to_string

from games.services.tables import is_guest

from . import selectors


def profile_sections(request, player) -> list[str]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return []
    if user.pk == player.pk:
        if is_guest(user):
            return []
        return [render_to_string("friends/partials/profile_own.html", {"player": player}, request=request)]
    context = {"player": player, "guest": is_guest(user), **selectors.relation(user, player)}
    return [render_to_string("friends/partials/profile_actions.html", context, request=request)]
