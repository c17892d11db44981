"""Reads the event page's standings partials need beside the panel's context: a knockout's bracket
and the event's tie-breaks in order, as rules text and as columns (all from tournaments.selectors)."""

from django import template

from tournaments import registry, selectors, standings

register = template.Library()


@register.simple_tag
def bracket_of(event):
    """What the event's format draws in its `bracket_template` (None: nothing yet)."""
    return registry.of(event).bracket(event)


@register.simple_tag
def tiebreaks_of(event) -> list[str]:
    """The event's tie-breaks as the rules text names them, in order."""
    return selectors.tiebreak_texts(event)


@register.simple_tag
def tiebreak_columns(event) -> list:
    """The event's tie-breaks in order (standings.Metric: header, label): the standings' columns."""
    return selectors.tiebreak_columns(event)


@register.filter
def points(value) -> str:
    """Points as the standings print them (standings.number_text): 3,75 and 4,5, never 3,8 or 4,50."""
    return standings.number_text(value)
