"""What the reviews app shows on a game's record page (registered with
`games.extensions` in ReviewsConfig.ready): the player's review panel and the
review's mark after each of his marked moves."""

from django.template.loader import render_to_string

from reviews import presenters, selectors


def record_panels(request, game) -> list[str]:
    if not game.is_over:
        return []
    found = presenters.panel_context(game.pk, request.user)
    return [render_to_string("reviews/partials/panel.html", found, request=request)] if found else []


def move_marks(request, game) -> dict:
    review = selectors.own_review(game.pk, request.user)
    marks = selectors.marks_by_step(review)
    return {
        step: render_to_string("reviews/partials/mark.html", {"mark": presenters.mark(step, d)})
        for step, d in marks.items()
    }
