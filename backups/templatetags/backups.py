"""{% backup_status %}: the director's line about the database's backups (nothing when all is well)."""

from django import template

from backups import selectors

register = template.Library()


@register.inclusion_tag("backups/partials/status.html")
def backup_status():
    return {"problem": selectors.backup_problem()}
