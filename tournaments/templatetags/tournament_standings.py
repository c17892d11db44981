"""Reads the event page's standings partials need beside the panel's context: a knockout's bracket
and the event's tie-breaks in order (both from tournaments.selectors)."""

from django import template

from tournaments import selectors

register = template.Library()


@register.simple_tag
def bracket_of(event):
    """selectors.bracket(event): None unless the event is a knockout with a round."""
    return selectors.bracket(event)


@register.simple_tag
def tiebreaks_of(event) -> list[str]:
    """The event's tie-breaks as the rules text names them, in order."""
    return selectors.tiebreak_texts(event)
