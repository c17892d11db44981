"""The review panel of a game's record: thin views, one service or selector each.

Only a player of the finished game gets anything here; everyone else gets a
404, as if there were no review.
"""

from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST

from reviews import presenters, selectors, services

PANEL = "reviews/partials/panel.html"


def _panel_response(request, game_id: int, status: int = 200, refusal: str = "") -> HttpResponse:
    context = presenters.panel_context(game_id, request.user)
    if context is None:
        raise Http404("No review here.")
    context["refusal"] = refusal
    return HttpResponse(render_to_string(PANEL, context, request=request), status=status)


@require_GET
def panel(request, game_id: int):
    """The panel alone: what the pending panel polls every 2 s. Once the review is
    done, an htmx poll reloads the page, so that the replay shows its marks."""
    review = selectors.own_review(game_id, request.user)
    if review is not None and review.status == review.Status.DONE and request.htmx:
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"
        return response
    return _panel_response(request, game_id)


@require_POST
def request_review(request, game_id: int):
    try:
        services.do_request_review(game_id, request.user)
    except services.ReviewRefused as refusal:
        if refusal.code in ("not_participant", "not_finished"):
            raise Http404(str(refusal)) from None
        if refusal.code == "daily_limit":
            # The panel says why (htmx swaps a 200 only; a plain form gets the 429 itself).
            return _panel_response(request, game_id, status=200 if request.htmx else 429, refusal=str(refusal))
        return HttpResponse(str(refusal), status=403)
    if request.htmx:
        return _panel_response(request, game_id)
    return redirect("games:game-record", game_id=game_id)
