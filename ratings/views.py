"""Pages: the ladder of a variant (players and pairs), a player's rating history."""

from django.contrib.auth import get_user_model
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from games import selectors as game_selectors
from games.choices import Variant
from ratings import selectors


def _variant(variant: str) -> str:
    if variant not in Variant.values:
        raise Http404(_("There is no such variant."))
    return variant


def index(request):
    return redirect("ratings:ladder", variant=Variant.PODKIDNOY)


def about(request):
    """What the number means: the scale, the conservative estimate, the provisional rule, ..."""
    return render(request, "ratings/about.html", selectors.explanation())


def ladder(request, variant: str):
    variant = _variant(variant)
    context = {
        "variant": variant,
        "variant_label": Variant(variant).label,
        "variants": selectors.variants(),
        "rows": selectors.ladder(variant),
        "pairs": selectors.pair_ladder(variant),
        "trend_days": selectors.TREND_DAYS,
        "inactive_days": selectors.INACTIVE_DAYS,
    }
    template = "ratings/partials/ladder.html" if request.headers.get("HX-Request") else "ratings/ladder.html"
    return render(request, template, context)


def _player(username: str):
    User = get_user_model()
    return get_object_or_404(User, **{User.USERNAME_FIELD: username})


def player(request, variant: str, username: str):
    variant = _variant(variant)
    person = _player(username)
    context = {
        "variant": variant,
        "variant_label": Variant(variant).label,
        "variants": selectors.variants(),
        "person": person,
        "ratings": selectors.player_ratings(person.pk),
        "chart": selectors.chart(person.pk, variant),
        "history": _with_record_links(list(reversed(selectors.history(person.pk, variant, limit=50))), request.user),
    }
    return render(request, "ratings/player.html", context)


def _with_record_links(history: list[dict], viewer) -> list[dict]:
    """Mark the games whose record the viewer may open (private tables' records are not for outsiders)."""
    visible = game_selectors.records_visible_to([h["game_id"] for h in history], viewer)
    for h in history:
        h["record_visible"] = h["game_id"] in visible
    return history


def chart(request, variant: str, username: str):
    """The chart alone (the partial other pages include, or fetch with htmx)."""
    variant = _variant(variant)
    person = _player(username)
    context = {"chart": selectors.chart(person.pk, variant), "person": person, "variant": variant}
    return render(request, "ratings/partials/chart.html", context)
