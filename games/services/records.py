"""Provably fair deals: checking a finished game against its commitment.

When a game starts, the table shows SHA-256 of its secret seed; at the end the
seed is revealed. `verify_game` re-deals from the seed and replays the move log,
checking every step. It only reads; it changes nothing.
"""

from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from games import engine
from games.models import Game

from .positions import deal, seed_hash


@dataclass
class VerifyResult:
    ok: bool
    problems: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)  # what was checked and passed


def verify_game(game: Game) -> VerifyResult:
    """Check the commitment, the deal, every move and the stored result of `game`.

    A game still being played fails at once: its seed is secret until the end.
    Texts are in the active language (English in management commands).
    """
    if not game.is_over:
        return VerifyResult(ok=False, problems=[_("The game is not over yet: its seed stays secret until the end.")])
    problems: list[str] = []
    checks: list[str] = []

    # 1. The commitment shown at the start.
    try:
        actual_hash = seed_hash(game.seed)
    except (UnicodeEncodeError, AttributeError):
        actual_hash = None
    if actual_hash == game.seed_hash:
        checks.append(_("SHA-256 of the seed is the hash shown at the start (%(hash)s).") % {"hash": game.seed_hash})
    else:
        problems.append(
            _("SHA-256 of the seed is %(actual)s, but the hash shown at the start was %(hash)s.")
            % {"actual": actual_hash, "hash": game.seed_hash}
        )

    # 2. The deal from the seed.
    try:
        rules = engine.Rules.from_dict(game.rules)
        position = deal(rules, game.seed, game.dealer)
    except (ValueError, TypeError) as error:
        problems.append(_("The game cannot be dealt from its rules and seed: %(error)s") % {"error": error})
        return VerifyResult(ok=False, problems=problems, checks=checks)
    checks.append(
        _("Dealt %(deck)s cards to %(players)s players from the seed (dealer: seat %(dealer)s).")
        % {"deck": rules.deck, "players": rules.players, "dealer": game.dealer}
    )

    # 3. Every move, in order, legal in the position before it.
    moves = list(game.moves.order_by("number").values_list("number", "seat", "action"))
    replayed = 0
    for expected, (number, seat, action) in enumerate(moves):
        if number != expected:
            problems.append(
                _("The move log skips from move %(expected)s to move %(number)s.")
                % {"expected": expected, "number": number}
            )
            break
        if position.is_over:
            problems.append(
                _("Move %(number)s (seat %(seat)s: %(action)s) comes after the end of the game.")
                % {"number": number, "seat": seat, "action": action}
            )
            break
        if not 0 <= seat < rules.players:
            problems.append(
                _("Move %(number)s is made by seat %(seat)s, which is not at the table.")
                % {"number": number, "seat": seat}
            )
            break
        if action not in position.legal_actions(seat):
            try:
                position.copy().act(seat, action)
                reason = _("it is not among the legal actions")
            except engine.IllegalAction as refusal:
                reason = refusal.reason
            problems.append(
                _("Move %(number)s (seat %(seat)s: %(action)s) is illegal: %(reason)s")
                % {"number": number, "seat": seat, "action": action, "reason": reason}
            )
            break
        position.act(seat, action)
        replayed += 1
    if replayed == len(moves):
        checks.append(_("All %(count)s moves are legal, in order.") % {"count": len(moves)})

    if problems:
        return VerifyResult(ok=False, problems=problems, checks=checks)

    # 4. The end: the replay must reach exactly the stored position and result.
    if len(moves) != game.move_count:
        problems.append(
            _("The log holds %(count)s moves but the game counts %(move_count)s.")
            % {"count": len(moves), "move_count": game.move_count}
        )
    if not position.is_over:
        problems.append(_("The moves do not finish the game, yet it is recorded as over."))
    try:
        stored = engine.Game.from_json(game.state_json)
    except (ValueError, KeyError, TypeError):
        stored = None
    if stored is None or stored != position:
        problems.append(_("The stored final position differs from the one the moves lead to."))
    else:
        checks.append(_("The replay ends in the stored final position."))

    expected_result = {
        "places": {str(s): p for s, p in position.places.items()},
        "durak": position.durak,
        "losers": list(position.losers),
        "draw": not position.losers,
    }
    result = game.result or {}
    result_ok = True
    for key, value in expected_result.items():
        if result.get(key) != value:
            result_ok = False
            problems.append(
                _("The stored result has %(key)s = %(stored)r, the replay gives %(value)r.")
                % {"key": key, "stored": result.get(key), "value": value}
            )
    for seat in game.seats.all():
        place = position.places.get(seat.number)
        if seat.place != place:
            result_ok = False
            problems.append(
                _("Seat %(seat)s is recorded in place %(stored)s, the replay gives %(place)s.")
                % {"seat": seat.number, "stored": seat.place, "place": place}
            )
        if seat.is_loser != (seat.number in position.losers):
            result_ok = False
            problems.append(
                _("Seat %(seat)s is wrongly recorded as a loser.") % {"seat": seat.number}
                if seat.is_loser
                else _("Seat %(seat)s is wrongly recorded as not a loser.") % {"seat": seat.number}
            )
    if result_ok:
        if position.durak is not None:
            outcome = _("seat %(seat)s is the durak") % {"seat": position.durak}
        elif position.losers:
            outcome = _("seats %(seats)s lose") % {"seats": ", ".join(map(str, position.losers))}
        else:
            outcome = _("a draw")
        checks.append(_("The stored places and result match the replay (%(outcome)s).") % {"outcome": outcome})

    return VerifyResult(ok=not problems, problems=problems, checks=checks)
