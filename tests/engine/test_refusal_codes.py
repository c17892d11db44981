"""Refusal codes (docs/engine.md): every code in `REFUSALS` is what the engine says for
one hand-built refusal, each refusal names its code, and its reason is the code's
text filled in with its params."""

import pickle

import pytest

from games.engine import REFUSALS, Game, IllegalAction, Rules
from tests.engine.rulebook import play, refused

HOUSE3 = Rules(players=3)
PEREVODNOY3 = Rules(variant="perevodnoy", players=3)
SHOW3 = Rules(variant="perevodnoy", players=3, trump_show_transfer=True)
SHOW2 = Rules(variant="perevodnoy", trump_show_transfer=True)
PARTNERS4 = Rules(players=4, partners=True)
NEIGHBOURS4 = Rules(players=4, throw_in="neighbours")
SWAP = Rules(trump_six_swap=True)

# Trump is hearts (AH lies face up under the stock); seat 0 attacks seat 1.
HANDS3 = [
    ["6S", "8S", "9H", "JD", "QC", "KC"],
    ["7S", "6H", "10S", "7C", "8D", "AD"],
    ["6D", "9S", "10D", "JC", "QD", "AS"],
]
HANDS4 = [
    ["6S", "8S", "9H", "JD"],
    ["7S", "6H", "10S", "7C"],
    ["9S", "10D", "JC", "QD"],
    ["6D", "AS", "KS", "KD"],
]
COVERED = [("6S", "7S"), ("6D", "7D"), ("6C", "7C"), ("8S", "9S"), ("8D", "9D")]


def three(rules=HOUSE3, *moves, hands=HANDS3):
    game = Game.from_layout(rules, hands=hands, stock=["8C", "AH"], attacker=0, first_bout=False)
    play(game, *moves)
    return game


def four(rules, *moves):
    game = Game.from_layout(rules, hands=HANDS4, stock=["8C", "AH"], attacker=0, first_bout=False)
    play(game, *moves)
    return game


def bout_of(pairs, first_bout):
    hands = [["6H", "KS"], ["AS", "KD"], ["QS", "QD"]]
    return Game.from_layout(HOUSE3, hands=hands, stock=["10C", "AH"], attacker=0, first_bout=first_bout, table=pairs)


def over():
    game = Game.from_layout(Rules(), hands=[["6S"], ["7D"]], trump="H", attacker=0, first_bout=False)
    play(game, (0, "attack 6S"), (1, "take"))
    assert game.is_over
    return game


def nobody_left_to_receive():
    game = Game.from_layout(SHOW2, hands=[["6S"], ["6H", "6D", "7C"]], trump="D", attacker=0, first_bout=False)
    play(game, (0, "attack 6S"))
    return game


def shown_twice():
    game = Game.from_layout(
        SHOW2, hands=[["7S", "7D", "QD", "KD", "AD"], ["7H", "9C", "8S", "10C"]], stock=["6C", "AH"], attacker=0
    )
    play(game, (0, "attack 7S"), (1, "show 7H"), (0, "transfer 7D"))
    return game


def transfer_over_the_limit():
    hands = [["QD", "KD"], ["7D", "6S", "6D", "6C", "6H", "AD"], ["KS", "AS", "QC", "KC", "AC", "QH"]]
    pairs = [("7S", None), ("8S", None), ("9S", None), ("10S", None), ("JS", None)]
    return Game.from_layout(PEREVODNOY3, hands=hands, stock=["8C", "AH"], attacker=0, first_bout=True, table=pairs)


def swap_table(first_bout=True, rules=SWAP):
    hands = [["7S", "QD", "KD", "9C", "10C", "JC"], ["6H", "8S", "9D", "10D", "JD", "QC"]]
    return Game.from_layout(rules, hands=hands, stock=["6C", "7C", "8C", "QH"], attacker=0, first_bout=first_bout)


ATTACKED = (0, "attack 6S")
COVERED_6S = (1, "defend 6S with 7S")

# code -> (position, seat, action). One position per code, each as small as the rule allows.
CASES = {
    "action_not_text": (lambda: three(), 0, 42),
    "malformed_action": (lambda: three(), 0, "jump 6S"),
    "game_over": (over, 1, "take"),
    "no_such_seat": (lambda: three(), 7, "take"),
    "left_game": (
        lambda: Game.from_layout(HOUSE3, hands=[[], ["7S", "8S"], ["9S", "10S"]], trump="H", attacker=1),
        0,
        "take",
    ),
    "card_not_held": (lambda: three(), 0, "attack AS"),
    "not_the_opener": (lambda: three(), 1, "attack 7S"),
    "defender_throws_in": (lambda: three(HOUSE3, ATTACKED), 1, "attack 6H"),
    "partner_throws_in": (lambda: four(PARTNERS4, ATTACKED), 3, "attack 6D"),
    "not_a_neighbour": (lambda: four(NEIGHBOURS4, ATTACKED), 2, "attack 9S"),
    "passed_until_next_card": (lambda: three(HOUSE3, ATTACKED, COVERED_6S, (2, "pass")), 2, "attack 6D"),
    "rank_not_on_table": (lambda: three(HOUSE3, ATTACKED), 2, "attack 9S"),
    "bout_limit": (lambda: bout_of([*COVERED, ("8C", "9C")], first_bout=False), 0, "attack 6H"),
    "first_bout_limit": (lambda: bout_of(COVERED, first_bout=True), 0, "attack 6H"),
    "hand_limit": (
        lambda: three(HOUSE3, ATTACKED, hands=[["6S", "6D", "KC"], ["7D"], ["9S", "JC"]]),
        0,
        "attack 6D",
    ),
    "bout_not_started": (lambda: three(), 0, "pass"),
    "defender_passes": (lambda: three(HOUSE3, ATTACKED), 1, "pass"),
    "not_a_thrower": (lambda: four(NEIGHBOURS4, ATTACKED), 2, "pass"),
    "already_passed": (lambda: three(HOUSE3, ATTACKED, COVERED_6S, (2, "pass")), 2, "pass"),
    "pass_while_uncovered": (lambda: three(HOUSE3, ATTACKED), 2, "pass"),
    "only_defender_defends": (lambda: three(HOUSE3, ATTACKED), 2, "defend 6S with 9S"),
    "only_defender_transfers": (lambda: three(PEREVODNOY3, ATTACKED), 2, "transfer 6D"),
    "only_defender_shows": (lambda: three(SHOW3, ATTACKED), 2, "show 6D"),
    "only_defender_takes": (lambda: three(HOUSE3, ATTACKED), 2, "take"),
    "table_empty": (lambda: three(), 1, "take"),
    "already_taking": (lambda: three(HOUSE3, ATTACKED, (1, "take")), 1, "take"),
    "all_covered": (lambda: three(HOUSE3, ATTACKED, COVERED_6S), 1, "take"),
    "not_uncovered": (lambda: three(HOUSE3, ATTACKED), 1, "defend 8S with 10S"),
    "does_not_beat": (lambda: three(HOUSE3, ATTACKED), 1, "defend 6S with 8D"),
    "no_transfers": (lambda: three(HOUSE3, ATTACKED), 1, "transfer 6H"),
    "show_not_played": (lambda: three(PEREVODNOY3, ATTACKED), 1, "show 6H"),
    "transfer_too_late": (lambda: three(PEREVODNOY3, ATTACKED, (2, "attack 6D"), COVERED_6S), 1, "transfer 6H"),
    "transfer_wrong_rank": (lambda: three(PEREVODNOY3, ATTACKED), 1, "transfer 7S"),
    "nobody_to_transfer_to": (nobody_left_to_receive, 1, "transfer 6H"),
    "transfer_bout_limit": (transfer_over_the_limit, 1, "transfer 7D"),
    "receiver_short": (
        lambda: three(PEREVODNOY3, ATTACKED, hands=[["6S", "8S"], ["6H", "7S"], ["9S"]]),
        1,
        "transfer 6H",
    ),
    "show_not_trump": (
        lambda: three(SHOW3, ATTACKED, hands=[["6S", "8S"], ["6H", "6C"], ["9S", "10S"]]),
        1,
        "show 6C",
    ),
    "already_shown": (shown_twice, 1, "show 7H"),
    "no_trump_six_swap": (lambda: swap_table(rules=Rules()), 1, "swap 6H"),
    "swap_not_trump_six": (lambda: swap_table(), 1, "swap 8S"),
    "swap_too_late": (lambda: swap_table(first_bout=False), 1, "swap 6H"),
}


def test_every_refusal_code_has_a_case_and_every_case_a_code():
    assert set(CASES) == set(REFUSALS)


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_refusal_names_its_code(code):
    position, seat, action = CASES[code]
    game = position()
    if isinstance(action, str) and code not in ("malformed_action", "no_such_seat"):
        refused(game, seat, action, code=code)
        return
    before = game.to_json()
    with pytest.raises(IllegalAction) as info:
        game.act(seat, action)
    assert info.value.code == code
    assert info.value.reason == REFUSALS[code].format(**info.value.params)
    assert game.to_json() == before


def test_codes_are_stable_snake_case_and_texts_are_sentences():
    for code, text in REFUSALS.items():
        assert code.replace("_", "").isalpha() and code == code.lower(), code
        assert text[0].isupper() or text.startswith("{"), text
        assert text.endswith("."), text


def test_a_refusal_carries_code_params_and_reason():
    """The web layer translates by code and fills in the params; str() stays the English reason."""
    game = three()
    with pytest.raises(IllegalAction) as info:
        game.act(1, "attack 7S")
    refusal = info.value
    assert refusal.code == "not_the_opener"
    assert refusal.params == {"attacker": 0}
    assert refusal.reason == "Only the attacker (seat 0) plays the first card of a bout (R8)."
    assert str(refusal) == refusal.reason
    again = pickle.loads(pickle.dumps(refusal))
    assert (again.code, again.params, again.reason) == (refusal.code, refusal.params, refusal.reason)


def test_a_malformed_action_is_refused_with_its_own_code():
    with pytest.raises(IllegalAction) as info:
        three().act(0, "defend 6S by 7S")
    assert info.value.code == "malformed_action"
    assert info.value.params == {"action": "'defend 6S by 7S'"}
    assert info.value.reason.startswith("Malformed action 'defend 6S by 7S': expected 'attack <card>'")


def test_an_unknown_code_is_a_programming_error():
    with pytest.raises(ValueError, match="Unknown refusal code"):
        IllegalAction("no_such_code")
