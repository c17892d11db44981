"""A countdown shown as a clock: 1:05:09 reads better than 3909 s."""

from django import template

register = template.Library()


@register.filter
def clock(seconds) -> str:
    """Seconds as H:MM:SS (M:SS under an hour); the event page's script counts on in the same form."""
    try:
        left = max(0, int(seconds))
    except (TypeError, ValueError):
        return ""
    hours, rest = divmod(left, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
