"""Why the rules refuse an action: every refusal's code and text, and the checks by action kind.

A refusal has a stable snake_case `code` (what the web layer translates) and
an English `reason`, the code's text in `REFUSALS` filled in with the
refusal's `params` (`REFUSALS[code].format(**params) == reason`).

`Game.act` runs the checks every action shares (`common_refusal`), then the
check of the action's kind from `REFUSAL_CHECKS`, the way it then runs the
effect of that kind from `Game._EFFECTS`. A check returns None when the
action is allowed, else the `IllegalAction` to raise; texts are only
formatted on a refusal, which keeps the accepted path (every step of a
playout) free of string work.
"""

from .cards import BEATERS, RANK, SUIT

REFUSALS: dict[str, str] = {
    # Reading the action (actions.parse_action)
    "action_not_text": "An action is a text such as 'attack 6S', not {type}.",
    "malformed_action": (
        "Malformed action {action}: expected 'attack <card>', 'defend <card> with <card>', "
        "'transfer <card>', 'take' or 'pass' (cards like 6S, 10H, QD, AC)."
    ),
    # Every action
    "game_over": "The game is over.",
    "no_such_seat": "There is no seat {seat} at this table.",
    "left_game": "You have left the game: you have no more moves.",
    "card_not_held": "You do not hold {card}.",
    # attack (the opening card and throwing in)
    "not_the_opener": "Only the attacker (seat {attacker}) plays the first card of a bout (R8).",
    "defender_throws_in": "The defender cannot throw in to himself (R10).",
    "partner_throws_in": "You cannot throw in to your own partner (R10).",
    "not_a_neighbour": "Only the attacker and his neighbours throw in at this table (T3).",
    "passed_until_next_card": "You have passed: you may add nothing until another card reaches the table (R15).",
    "rank_not_on_table": "{card} cannot be thrown in: no card of its rank is on the table (R10).",
    "bout_limit": "This bout already has {count} attack cards, the most allowed (R12).",
    "first_bout_limit": "This bout already has {count} attack cards, the most allowed in the first bout (R12).",
    "hand_limit": "The defender holds {count} cards: there may not be more uncovered cards than that (R11).",
    # pass
    "bout_not_started": "The bout has not started: the attacker must play a card (R8).",
    "defender_passes": "The defender does not pass: beat the cards or take them (R13).",
    "not_a_thrower": "You are not throwing in to this bout.",
    "already_passed": "You have already passed.",
    "pass_while_uncovered": "You may pass only when every card is covered or the defender has taken (R15).",
    # defend, transfer, show, take: the defender's actions
    "only_defender_defends": "Only the defender (seat {defender}) may defend.",
    "only_defender_transfers": "Only the defender (seat {defender}) may transfer.",
    "only_defender_shows": "Only the defender (seat {defender}) may show.",
    "only_defender_takes": "Only the defender (seat {defender}) may take.",
    "table_empty": "There is nothing on the table yet.",
    "already_taking": "You have already said you take the cards (R13).",
    "all_covered": "Every card is covered: wait for a throw-in or the end of the bout (R14).",
    "not_uncovered": "{target} is not an uncovered card on the table.",
    "does_not_beat": "{card} does not beat {target} (R9).",
    # transfer and show (R22-R25, T5)
    "no_transfers": "Transfers exist only in perevodnoy (R22).",
    "show_not_played": "A trump cannot be shown instead of played to transfer (R25).",
    "transfer_too_late": "You have already beaten a card: it is too late to transfer (R22).",
    "transfer_wrong_rank": "{card} does not match the rank of the attack cards (R22).",
    "nobody_to_transfer_to": "Nobody is left to pass the attack to: beat the cards or take them (R22, R20).",
    "transfer_bout_limit": "A transfer would make {count} attack cards, more than this bout allows (R23, R12).",
    "receiver_short": (
        "Seat {receiver} holds only {held} cards, fewer than the {count} attack cards a transfer would give him (R23)."
    ),
    "show_not_trump": "Only a trump can be shown to transfer (T5); {card} is not a trump.",
    "already_shown": "{card} has already been shown in this bout.",
    # swap (T6)
    "no_trump_six_swap": "The trump six swap is not played at this table (T6).",
    "swap_not_trump_six": "Only the trump six can be swapped for the face-up trump (T6), not {card}.",
    "swap_too_late": "The stock has been touched: it is too late to swap the trump six (T6).",
}


class IllegalAction(Exception):
    """An action the rules refuse.

    `code`: a stable snake_case id (a key of REFUSALS); `params`: the values
    its text names (cards and seats as the engine writes them, counts as
    ints); `reason`: the English text, also `str(refusal)`.
    """

    def __init__(self, code: str, **params):
        if code not in REFUSALS:
            raise ValueError(f"Unknown refusal code {code!r}.")
        self.code = code
        self.params = params
        self.reason = REFUSALS[code].format(**params)
        super().__init__(self.reason)

    def __reduce__(self):
        return (_rebuild, (self.code, self.params))


def _rebuild(code: str, params: dict) -> IllegalAction:
    return IllegalAction(code, **params)


def common_refusal(game, seat, action) -> IllegalAction | None:
    """What every action needs: a game still on, a seat still in it, the card in hand."""
    if game.over:
        return IllegalAction("game_over")
    if type(seat) is not int and (not isinstance(seat, int) or isinstance(seat, bool)) or not 0 <= seat < game.n:
        return IllegalAction("no_such_seat", seat=repr(seat))
    if seat in game.out:
        return IllegalAction("left_game")
    card = action.card
    if card is not None and card not in game.hands[seat]:
        return IllegalAction("card_not_held", card=card)
    return None


def attack_refusal(game, seat, action) -> IllegalAction | None:
    """R8 (the opening card), R10-R12 and R15 (throwing in), T3."""
    table = game.pairs
    if not table:
        if seat != game.attacker:
            return IllegalAction("not_the_opener", attacker=game.attacker)
        return None
    if seat == game.defender:
        return IllegalAction("defender_throws_in")
    if game._teams[seat] == game._teams[game.defender]:
        return IllegalAction("partner_throws_in")
    if not game.is_thrower(seat):
        return IllegalAction("not_a_neighbour")
    if seat in game.passed:
        return IllegalAction("passed_until_next_card")
    card = action.card
    rank, on_table, uncovered = RANK[card], False, 0
    for a, d in table:
        if RANK[a] == rank:
            on_table = True
        if d is None:
            uncovered += 1
        elif RANK[d] == rank:
            on_table = True
    if not on_table:
        return IllegalAction("rank_not_on_table", card=card)
    if len(table) >= game.attack_limit:
        return IllegalAction("first_bout_limit" if game.first_bout else "bout_limit", count=len(table))
    held = len(game.hands[game.defender])
    if uncovered >= held:
        return IllegalAction("hand_limit", count=held)
    return None


def pass_refusal(game, seat, action) -> IllegalAction | None:
    """R15: a thrower passes when every card is covered or the defender has taken."""
    table = game.pairs
    if not table:
        return IllegalAction("bout_not_started")
    if seat == game.defender:
        return IllegalAction("defender_passes")
    if not game.is_thrower(seat):
        return IllegalAction("not_a_thrower")
    if seat in game.passed:
        return IllegalAction("already_passed")
    if not game.taking:
        for _, d in table:
            if d is None:
                return IllegalAction("pass_while_uncovered")
    return None


_ONLY_DEFENDER = {
    "defend": "only_defender_defends",
    "transfer": "only_defender_transfers",
    "show": "only_defender_shows",
    "take": "only_defender_takes",
}


def _defender_refusal(game, seat, action) -> IllegalAction | None:
    """What defend, transfer, show and take share: the defender facing an uncovered card."""
    if seat != game.defender:
        return IllegalAction(_ONLY_DEFENDER[action.kind], defender=game.defender)
    table = game.pairs
    if not table:
        return IllegalAction("table_empty")
    if game.taking:
        return IllegalAction("already_taking")
    for _, d in table:
        if d is None:
            return None
    return IllegalAction("all_covered")


def take_refusal(game, seat, action) -> IllegalAction | None:
    """R13: the defender may take at any moment while a card is uncovered."""
    return _defender_refusal(game, seat, action)


def defend_refusal(game, seat, action) -> IllegalAction | None:
    """R9: beat an uncovered card with a higher one of its suit, or a trump."""
    refusal = _defender_refusal(game, seat, action)
    if refusal is not None:
        return refusal
    target = action.target
    for a, d in game.pairs:
        if a == target and d is None:
            break
    else:
        return IllegalAction("not_uncovered", target=target)
    if action.card not in BEATERS[game.trump][target]:
        return IllegalAction("does_not_beat", card=action.card, target=target)
    return None


def transfer_refusal(game, seat, action) -> IllegalAction | None:
    """R22-R25, and T5 for `show`: pass the attack on with a card of its rank."""
    refusal = _defender_refusal(game, seat, action)
    if refusal is not None:
        return refusal
    kind, card, table = action.kind, action.card, game.pairs
    if not game.rules.transfers:
        return IllegalAction("no_transfers")
    if kind == "show" and not game.rules.trump_show_transfer:
        return IllegalAction("show_not_played")
    for _, d in table:
        if d is not None:
            return IllegalAction("transfer_too_late")
    if RANK[card] != RANK[table[0][0]]:
        return IllegalAction("transfer_wrong_rank", card=card)
    receiver = game._defender_for(seat)
    if receiver == seat:
        return IllegalAction("nobody_to_transfer_to")
    attack_cards = len(table) + (1 if kind == "transfer" else 0)
    if kind == "transfer" and attack_cards > game.attack_limit:
        return IllegalAction("transfer_bout_limit", count=attack_cards)
    held = len(game.hands[receiver])
    if held < attack_cards:
        return IllegalAction("receiver_short", receiver=receiver, held=held, count=attack_cards)
    if kind == "show":
        if SUIT[card] != game.trump:
            return IllegalAction("show_not_trump", card=card)
        if card in game.shown:
            return IllegalAction("already_shown", card=card)
    return None


def swap_refusal(game, seat, action) -> IllegalAction | None:
    """T6: the trump six for the face-up trump, before the stock is touched."""
    if not game.rules.trump_six_swap:
        return IllegalAction("no_trump_six_swap")
    if action.card != "6" + game.trump:
        return IllegalAction("swap_not_trump_six", card=action.card)
    if game.stock_touched or not game.stock:
        return IllegalAction("swap_too_late")
    return None


# Game.act checks an action of each kind with this table (like Game._EFFECTS).
REFUSAL_CHECKS = {
    "attack": attack_refusal,
    "defend": defend_refusal,
    "transfer": transfer_refusal,
    "show": transfer_refusal,
    "take": take_refusal,
    "pass": pass_refusal,
    "swap": swap_refusal,
}
