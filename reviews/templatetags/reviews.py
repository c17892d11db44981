"""`{% load reviews %}`: a player's review on his game's record page.

- `{% review_panel %}`: the "Review my game" button, the pending state (polled
  every 2 s) or the summary of the done review; nothing for anyone but a
  player of the finished game (`game` from the page's context);
- `{% review_mark step %}`: the mark (?! ? ??) of the player's move at that
  replay step, with the better move and the drop in the chance of not losing.

The marks of a page are read once per rendering (`render_context`).
"""

from django import template

from reviews import presenters, selectors

register = template.Library()


def _page_marks(context) -> dict:
    key = "reviews.marks"
    marks = context.render_context.get(key)
    if marks is None:
        game = context.get("game")
        request = context.get("request")
        marks = {}
        if game is not None and request is not None:
            review = selectors.own_review(game.pk, request.user)
            marks = {step: presenters.mark(step, d) for step, d in selectors.marks_by_step(review).items()}
        context.render_context[key] = marks
    return marks


@register.inclusion_tag("reviews/partials/panel.html", takes_context=True)
def review_panel(context):
    game = context.get("game")
    request = context.get("request")
    found = None
    if game is not None and request is not None and game.is_over:
        found = presenters.panel_context(game.pk, request.user)
    return found or {"shown": False}


@register.inclusion_tag("reviews/partials/mark.html", takes_context=True)
def review_mark(context, step):
    return {"mark": _page_marks(context).get(step)}
