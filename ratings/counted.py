"""What the ratings count: the one rule for a game decided without being played out.

Ratings measure games played. A rated game ended by the site or a director instead of by
its last move (`Game.result["ended"]`, games.services.adjudication) counts only after real
play:

- a forfeit never: a player who never came to his table played nothing, and the others'
  ratings would move on a game nobody played against him;
- an adjudication (a director ends a stuck game) or a claimed win (an opponent gone
  offline) only from REAL_PLAY_MOVES moves on: before that, the places are a decision, not
  a game.

The games app asks `counts` in the transaction that ends such a game
(`games.extensions.rated_when_ended`, registered in RatingsConfig.ready) and stores the game
unrated when it does not; the record page shows why (`unrated_reason`, at_table.record_panels).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

FORFEIT = "forfeit"
REAL_PLAY_MOVES = 20  # a first bout or two at a table of two: the least that is a game


def unrated_reason(ended: dict | None, moves: int) -> str | None:
    """Why a game that ended this way is not rated (None: it counts, or it was played out)."""
    if not ended:
        return None
    if ended.get("reason") == FORFEIT:
        return _("Not rated: decided by a forfeit (a player never came to the table). Ratings count games played.")
    if moves < REAL_PLAY_MOVES:
        return ngettext_lazy(
            "Not rated: decided without being played out after %(moves)s move, before real play "
            "(a game decided so counts from %(needed)s moves on).",
            "Not rated: decided without being played out after %(moves)s moves, before real play "
            "(a game decided so counts from %(needed)s moves on).",
            "moves",
        ) % {"moves": moves, "needed": REAL_PLAY_MOVES}
    return None


def counts(ended: dict | None, moves: int) -> bool:
    """Whether a rated game that ended this way still counts for the ratings."""
    return unrated_reason(ended, moves) is None
