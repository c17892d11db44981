"""What the review panel and the marks show: plain dicts for the templates."""

from games.display import action_text
from reviews import selectors
from reviews.models import ReviewedDecision

SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def panel_context(game_id: int, user) -> dict | None:
    """What the panel shows `user`, or None when he played no seat of that finished game."""
    seat = selectors.seat_of(game_id, user)
    if seat is None:
        return None
    review = selectors.own_review(game_id, user)
    polling = review is not None and review.status in (review.Status.PENDING, review.Status.RUNNING)
    context = {"shown": True, "game_id": game_id, "review": review, "polling": polling, "counts": None, "marks": []}
    if review is not None and review.status == review.Status.DONE:
        context["counts"] = selectors.summary(review)
        context["marks"] = [mark(step, d) for step, d in sorted(selectors.marks_by_step(review).items())]
    return context


def mark(step: int, decision) -> dict:
    return {
        "step": step,
        "label": decision.label,
        "symbol": SYMBOLS[decision.label],
        "name": ReviewedDecision.Label(decision.label).label,
        "played": action_text(decision.played),
        "best": action_text(decision.best),
        "drop_percent": round(decision.drop * 100),
        "value_played_percent": round(decision.value_played * 100),
        "value_best_percent": round(decision.value_best * 100),
    }
