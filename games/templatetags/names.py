"""`{{ name|player_name }}`: a player's name as the active language shows it (guests)."""

from django import template

from games import display

register = template.Library()


@register.filter
def player_name(name) -> str:
    return display.player_name(str(name or ""))
