"""A game's record: result, the provably fair commitment and a step-by-step replay.

While a game is being played its record shows only public facts (no hands, no
seed); after the end every hand is open at every step.
"""

import hashlib
import json
import shlex
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render

from games import engine, extensions, permissions, positions, selectors
from games.display import (
    action_text,
    bot_label,
    card,
    outcome,
    rules_summary,
    seat_player_name,
    suit,
    timer_text,
    variant_name,
)
from games.models import Game
from games.services.play import result_places

POSITION_PARTIAL = "games/records/partials/position.html"


def _seat_names(game: Game) -> dict[int, dict]:
    seats = {}
    for seat in game.seats.select_related("user"):
        # The same name as at the table: the player's, or "Bot 2" (seats count from 1 everywhere).
        name = seat_player_name(selectors.display_name(seat.user) if seat.user_id else "", seat.bot_level, seat.number)
        seats[seat.number] = {
            "seat": seat,
            "name": name,
            "user": seat.user,
            "label": seat.number + 1,
            "bot_label": bot_label(seat.bot_level) if seat.bot_level and not seat.user_id else "",
        }
    return seats


def _result_rows(game: Game, names: dict) -> list[dict]:
    """One row per seat, in the order of the places that count (the table's result panel agrees)."""
    seats = {number: info["seat"] for number, info in names.items()}
    ranked = result_places(
        {n: s.place for n, s in seats.items()},
        {n: s.counted_place for n, s in seats.items()},  # (an older record has none: computed)
        {n for n, s in seats.items() if s.abandoned},
        game.rules.get("players") or len(names),
    )
    rows = []
    for row in ranked:
        number = row["seat"]
        seat = seats[number]
        css, words = outcome(game.result, number, seat.is_loser, seat.abandoned)
        rows.append(
            {
                **names[number],
                "number": number,
                "outcome": words,
                "outcome_class": css,
                "place": row["place"],
                "played_place": row["played_place"],
            }
        )
    return rows


def _move_texts(game: Game, moves: list) -> list[str]:
    """Each move in words, a pass as the table's button said it («Пас» or «Бито»)."""
    position = positions.deal_of(game)
    texts = []
    for m in moves:
        texts.append(action_text(m.action, defender_takes=position.taking))
        try:
            position.act(m.seat, m.action)
        except engine.IllegalAction:  # a broken log: the verify page says so; words need no more
            break
    texts += [action_text(m.action) for m in moves[len(texts) :]]
    return texts


def _position_context(game: Game, step: int, names: dict, moves: list, texts: list | None = None) -> dict:
    position = positions.replay(game, upto=step)
    view = position.view(None)
    seats = []
    for s in range(position.n):
        seats.append(
            {
                "number": s,
                "name": names.get(s, {}).get("name", ""),
                "hand": [card(c, position.trump) for c in engine.sort_hand(position.hand(s), position.trump)],
                "place": position.places.get(s),
                "attacker": s == position.attacker and not position.is_over,
                "defender": s == position.defender and not position.is_over,
                "to_move": s in view["to_move"],
                "team": view["seats"][s]["team"],
            }
        )
    move = None
    if step > 0:
        m = moves[step - 1]
        move = {
            "number": step,
            "name": names.get(m.seat, {}).get("name", ""),
            "seat": m.seat,
            "action": m.action,
            "text": texts[step - 1] if texts else action_text(m.action),
            "source": m.get_source_display(),
            "source_code": m.source,
        }
    return {
        "game": game,
        "step": step,
        "last_step": len(moves),
        "prev_step": step - 1 if step > 0 else None,
        "next_step": step + 1 if step < len(moves) else None,
        "move": move,
        "seats": seats,
        "table_pairs": [(card(a, view["trump"]), card(d, view["trump"])) for a, d in view["table"]],
        "trump_card": card(view["trump_card"], view["trump"]),
        "trump": suit(view["trump"]),
        "trump_card_in_stock": view["trump_card_in_stock"],
        "stock_size": view["stock_size"],
        "discard_size": view["discard_size"],
        "taking": view["taking"],
        "partners": game.rules.get("partners"),
    }


def _step(request, last: int) -> int:
    try:
        step = int(request.GET.get("step", 0))
    except ValueError:
        step = 0
    return max(0, min(step, last))


REFERENCE_VERIFIER = "docs/fairness_verify.py"
REFERENCE_DEAL_METHOD = 2  # the method the reference verifier re-deals (docs/fairness.md)


def _visible_game(request, game_id: int) -> Game:
    """The game, if this person may see its record: a private table's games are for its people only."""
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    if not permissions.may_see_record(game, request.user):
        raise Http404("No such game.")
    return game


def fairness_context(game: Game) -> dict:
    """What an outside verifier needs: the dealer's seat, the deal method and, once the
    seed is revealed, the command line that re-deals the game with the reference verifier."""
    command = ""
    if game.is_over and game.deal_method == REFERENCE_DEAL_METHOD:
        command = shlex.join(
            [
                "python3",
                REFERENCE_VERIFIER,
                "--seed",
                game.seed,
                "--seed-hash",
                game.seed_hash,
                "--players",
                str(game.rules.get("players")),
                "--deck",
                str(game.rules.get("deck", 36)),
                "--dealer",
                str(game.dealer),
            ]
        )
    return {
        "dealer": game.dealer,
        "deal_method": game.deal_method,
        "reference_method": game.deal_method == REFERENCE_DEAL_METHOD,
        "verifier": REFERENCE_VERIFIER,
        "verify_command": command,
    }


def game_record(request, game_id: int):
    game = _visible_game(request, game_id)
    names = _seat_names(game)
    context = {
        "fairness": fairness_context(game),
        "game": game,
        "variant": variant_name(game.variant),
        "summary": rules_summary(game.rules),
        "timer": timer_text(game.turn_seconds),
        "players": game.rules.get("players"),
        "in_progress": not game.is_over,
    }
    if not game.is_over:
        context["seat_rows"] = [{**info, "number": n} for n, info in sorted(names.items())]
        return render(request, "games/records/record.html", context)

    moves = list(game.moves.order_by("number"))
    step = _step(request, len(moves))
    texts = _move_texts(game, moves)
    position = _position_context(game, step, names, moves, texts)
    if request.htmx and request.htmx.target == "replay":
        return render(request, POSITION_PARTIAL, position)
    context.update(position)
    context["result_rows"] = _result_rows(game, names)
    # A draw with a leaver is none for him: he counts as last, the others finished level.
    context["level_but_left"] = bool((game.result or {}).get("draw")) and any(
        info["seat"].abandoned for info in names.values()
    )
    # What other apps add to the record (a review and its marks): games.extensions.
    context["record_panels"] = extensions.record_panels(request, game)
    marks = extensions.move_marks(request, game)
    context["move_rows"] = [
        {
            "step": i + 1,
            "name": names.get(m.seat, {}).get("name", ""),
            "text": texts[i],
            "source": m.get_source_display(),
            "source_code": m.source,
            "mark": marks.get(i + 1, ""),
        }
        for i, m in enumerate(moves)
    ]
    return render(request, "games/records/record.html", context)


def _browser_check(game: Game) -> dict | None:
    """What static/js/verify.js needs to re-deal a finished game in the player's own
    browser (deal method 2, docs/fairness.md), and the deal the site played to compare
    with, card for card, in the reference verifier's form."""
    if not game.is_over or game.deal_method != REFERENCE_DEAL_METHOD:
        return None
    state = json.loads(positions.deal_of(game).to_json())
    names = _seat_names(game)
    return {
        "seed": game.seed,
        "seed_hash": game.seed_hash,
        "players": game.rules.get("players"),
        "deck": game.rules.get("deck", 36),
        "dealer": game.dealer,
        "deal": {
            "hands": state["hands"],
            "stock": state["stock"],
            "trump_card": state["trump_card"],
            "names": [names.get(n, {}).get("name", "") for n in range(len(state["hands"]))],
        },
    }


def _verifier_file() -> Path:
    return Path(settings.BASE_DIR) / REFERENCE_VERIFIER


def verifier_sha256() -> str:
    return hashlib.sha256(_verifier_file().read_bytes()).hexdigest()


def verifier_download(request):
    """The reference verifier, as a file a player saves and runs with Python 3."""
    response = HttpResponse(_verifier_file().read_bytes(), content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{Path(REFERENCE_VERIFIER).name}"'
    return response


def game_verify(request, game_id: int):
    game = _visible_game(request, game_id)
    result = positions.verify_game(game) if game.is_over else None
    check = _browser_check(game)
    context = {
        "game": game,
        "result": result,
        "fairness": fairness_context(game),
        "browser_check": json.dumps(check) if check else "",  # a data attribute: no inline script (CSP)
        "verifier_name": Path(REFERENCE_VERIFIER).name,
        "verifier_sha256": verifier_sha256(),
    }
    return render(request, "games/records/verify.html", context)
