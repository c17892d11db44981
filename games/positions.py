"""Engine positions of stored games: the one place that deals, replays and caches them.

The database is the truth: a game is its rules, a secret seed (committed to by
its SHA-256, shown from the start), the deal method and the ordered move log.
From these this module rebuilds any position (`deal_of`, `replay`), the events
a log shows (`recent_events`), and checks a finished game (`verify_game`).

`Game.state_json` caches the position after the last move; parsing it costs
more than a move, so each process keeps the positions it parsed or played
(`shared_position`, `remember`), keyed by the state text itself (a position is
a pure function of it: an entry can never be stale) and bounded
(POSITION_CACHE_SIZE, least recently used out first). A cached position is
SHARED: readers only look (`view`, `to_move`, `legal_actions` change nothing);
whoever will play on a position gets a copy (`position_of`; a copy costs
microseconds).

Everything here reads; nothing writes to the database.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engine
from games.choices import MoveSource
from games.errors import from_engine
from games.models import Game

POSITION_CACHE_SIZE = 512


def seed_hash(seed: str) -> str:
    """The commitment shown at the start of a game: SHA-256 of the seed text."""
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def deal(rules: engine.Rules, seed: str, dealer: int, deal_method: int = engine.DEAL_METHOD) -> engine.Game:
    """The position after the deal of `seed` by `deal_method` (old games keep theirs)."""
    return engine.Game.new(rules, seed=seed, dealer=dealer, deal_method=deal_method)


def deal_of(game: Game) -> engine.Game:
    """The first position of a stored game, dealt again from its seed."""
    return deal(engine.Rules.from_dict(game.rules), game.seed, game.dealer, deal_method=game.deal_method)


def replay(game: Game, upto: int | None = None) -> engine.Game:
    """The position after the first `upto` moves (all by default), from seed and log."""
    position = deal_of(game)
    moves = game.moves.order_by("number")
    if upto is not None:
        moves = moves.filter(number__lt=upto)
    for move in moves.values_list("seat", "action"):
        position.act(*move)
    return position


# ----------------------------------------------------------- the process's positions

_positions: OrderedDict[str, engine.Game] = OrderedDict()
_positions_lock = threading.Lock()


def shared_position(state_json: str) -> engine.Game:
    """The position a `Game.state_json` text describes, parsed once per process.

    SHARED and read-only: look at it (`view`, `to_move`, `legal_actions`), never
    play on it (`position_of` gives a copy). Every seat's consumer renders the
    same snapshot: one parse serves them all.
    """
    with _positions_lock:
        position = _positions.get(state_json)
        if position is not None:
            _positions.move_to_end(state_json)
            return position
    position = engine.Game.from_json(state_json)
    remember(state_json, position)
    return position


def remember(state_json: str, position: engine.Game) -> None:
    """Keep `position` (whose `to_json()` is `state_json`) for this process.

    The caller hands it over: nobody may change it after this call.
    """
    with _positions_lock:
        _positions[state_json] = position
        _positions.move_to_end(state_json)
        while len(_positions) > POSITION_CACHE_SIZE:
            _positions.popitem(last=False)


def cached_count() -> int:
    """How many positions this process keeps (none in a process that just started)."""
    return len(_positions)


def position_of(game: Game) -> engine.Game:
    """The current position of `game`, ours to play on: a copy of the shared one
    its state text describes (parsed at most once per process), else a replay."""
    if game.state_json:
        return shared_position(game.state_json).copy()
    return replay(game)


def recent_events(game_id: int | None, limit: int = 60, upto: int | None = None) -> tuple[list[dict], int]:
    """The last `limit` raw events of a game and the number of moves they cover.

    Rebuilt from the seed and the log. The events are the engine's raw ones:
    every caller redacts them for its viewer (`engine.event_for`), so private
    draws stay private. `upto`: only the first `upto` moves, the ones a snapshot
    read earlier counts (the log only grows), so its log never runs ahead of it.
    """
    if game_id is None:
        return [], 0
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return [], 0
    position = deal_of(game)
    events: list[dict] = [{"type": "deal", "visible_to": None}]
    moves = 0
    log = game.moves.order_by("number")
    if upto is not None:
        log = log.filter(number__lt=upto)
    for seat, action, source in log.values_list("seat", "action", "source"):
        if source == MoveSource.TIMEOUT:
            events.append(timeout_event(seat, action))
        events.extend(position.act(seat, action))
        moves += 1
    return events[-limit:], moves


def timeout_event(seat: int, action) -> dict:
    """The event before a move the server made for `seat` when its time ran out (not
    the engine's: the live table says so in the log and at that seat). `kind`: the
    move's kind ("attack", "take", "pass")."""
    return {"type": "timeout", "seat": seat, "kind": str(action).split()[0], "visible_to": None}


# --------------------------------------------------------------- provably fair deals


@dataclass
class VerifyResult:
    ok: bool
    problems: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)  # what was checked and passed


def verify_game(game: Game) -> VerifyResult:
    """Check the commitment, the deal, every move and the stored result of `game`.

    When a game starts, the table shows SHA-256 of its secret seed; at the end
    the seed is revealed. This re-deals from the seed and replays the move log,
    checking every step. A game still being played fails at once: its seed is
    secret until the end. Texts are in the active language (English in
    management commands).
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
        position = deal_of(game)
    except (ValueError, TypeError) as error:
        problems.append(_("The game cannot be dealt from its rules and seed: %(error)s") % {"error": error})
        return VerifyResult(ok=False, problems=problems, checks=checks)
    checks.append(
        ngettext(
            "Dealt a %(deck)s-card deck to %(players)s player from the seed (dealer: seat %(dealer)s).",
            "Dealt a %(deck)s-card deck to %(players)s players from the seed (dealer: seat %(dealer)s).",
            rules.players,
        )
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
                reason = str(from_engine(refusal))
            problems.append(
                _("Move %(number)s (seat %(seat)s: %(action)s) is illegal: %(reason)s")
                % {"number": number, "seat": seat, "action": action, "reason": reason}
            )
            break
        position.act(seat, action)
        replayed += 1
    if replayed == len(moves):
        checks.append(
            ngettext("%(count)s move, legal.", "%(count)s moves, all legal, in order.", len(moves))
            % {"count": len(moves)}
        )

    if problems:
        return VerifyResult(ok=False, problems=problems, checks=checks)

    # 4. The end: the replay must reach exactly the stored position and result.
    if len(moves) != game.move_count:
        problems.append(
            _("The log holds %(count)s moves but the game counts %(move_count)s.")
            % {"count": len(moves), "move_count": game.move_count}
        )
    ended = (game.result or {}).get("ended")
    if ended and not position.is_over and ended.get("moves") == len(moves):
        # Ended without being played out (games.services.adjudication): the log is
        # checked up to that point; the places are the forfeit's or the director's.
        try:
            stored = engine.Game.from_json(game.state_json)
        except (ValueError, KeyError, TypeError):
            stored = None
        if stored is None or stored != position:
            problems.append(_("The stored final position differs from the one the moves lead to."))
        elif ended.get("reason") == "forfeit":
            checks.append(
                _("Not played out: the log's moves (%(moves)s), then a forfeit by whoever never came.")
                % {"moves": len(moves)}
            )
        elif ended.get("reason") == "claimed":
            checks.append(
                _("Not played out: the log's moves (%(moves)s), then a win claimed over a player who had left.")
                % {"moves": len(moves)}
            )
        else:
            checks.append(
                _("Not played out: the log's moves (%(moves)s), then the places the director set.")
                % {"moves": len(moves)}
            )
        return VerifyResult(ok=not problems, problems=problems, checks=checks)
    if not position.is_over:
        problems.append(_("The moves do not finish the game, yet it is recorded as over."))
        return VerifyResult(ok=False, problems=problems, checks=checks)
    try:
        stored = engine.Game.from_json(game.state_json)
    except (ValueError, KeyError, TypeError):
        stored = None
    if stored is None or stored != position:
        problems.append(_("The stored final position differs from the one the moves lead to."))
    else:
        checks.append(_("The replay ends in the stored final position."))

    expected_result = position.result()
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
