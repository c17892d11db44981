"""Reads: a player's own review of a game, and its marks by replay step. No writes."""

from __future__ import annotations

from games import selectors as game_selectors
from reviews.models import Review


def seat_of(game_id: int, user) -> int | None:
    """The seat `user` played in finished game `game_id`, or None (not a player, not over)."""
    return game_selectors.finished_seat_of(game_id, user)


def own_review(game_id: int, user) -> Review | None:
    """`user`'s review of his own seat in a finished game; never another player's."""
    seat = seat_of(game_id, user)
    if seat is None:
        return None
    return Review.objects.filter(game_id=game_id, seat=seat).first()


def marks_by_step(review: Review | None) -> dict[int, object]:
    """The labelled decisions of a done review, keyed by replay step (move number + 1)."""
    if review is None or review.status != Review.Status.DONE:
        return {}
    return {d.move_number + 1: d for d in review.judged.exclude(label="")}


def summary(review: Review) -> dict[str, int]:
    """How many inaccuracies, mistakes and blunders a done review found."""
    counts = {"inaccuracy": 0, "mistake": 0, "blunder": 0}
    for label in review.judged.exclude(label="").values_list("label", flat=True):
        counts[label] += 1
    return counts
