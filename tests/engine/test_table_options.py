"""The rule book, part 5: table options (docs/rules.md section T).

T1 (deck) is in test_rules_deal.py and T5 (showing a trump) in
test_rules_transfer.py; here are T2 (first bout limit), T3 (throw-in by
neighbours), T4 (teams of three), T6 (trump six swap) and T7 (what the server
plays when a turn timer runs out).
"""

import random

import pytest

from games.engine import Action, Game, Rules
from tests.engine.rulebook import attacks, kinds, legal, play, refused

# ------------------------------------------------------------------- T2


def t2_game(rules, first_bout=True):
    return Game.from_layout(
        rules,
        hands=[["7C", "10D", "10H"], ["AC", "6H", "7H", "QS", "KS", "AS"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=first_bout,
        table=[("7S", "8S"), ("7D", "8D"), ("8C", "9C"), ("9S", "10S")],
    )


def test_t2_first_bout_limit_may_be_six():
    """T2: first bout limit: 5 (house) or 6."""
    game = t2_game(Rules(first_bout_limit=6))
    assert game.view(0)["attack_limit"] == 6
    play(game, (0, "attack 7C"), (0, "attack 10D"))  # the fifth and the sixth
    refused(game, 0, "attack 10H", "R12")


def test_t2_house_first_bout_limit_is_five():
    """T2: the house value is 5 (R12)."""
    assert Rules().first_bout_limit == 5
    game = t2_game(Rules())
    play(game, (0, "attack 7C"))
    refused(game, 0, "attack 10D", "R12")


@pytest.mark.parametrize("limit", [0, 4, 7, "6"])
def test_t2_other_first_bout_limits_are_refused(limit):
    """T2: only 5 or 6."""
    with pytest.raises(ValueError, match="5 or 6"):
        Rules(first_bout_limit=limit)


# ------------------------------------------------------------------- T3

NEIGHBOURS5 = Rules(players=5, throw_in="neighbours")
T3_HANDS = [["8S", "QD"], ["JS", "KC", "AC"], ["8C", "9D"], ["8H", "9C"], ["8D", "10C"]]


def test_t3_only_the_opener_and_his_neighbours_throw_in():
    """T3: throw-in by the attacker's neighbours only (besides the opener himself)."""
    assert Rules().throw_in == "all"
    game = Game.from_layout(NEIGHBOURS5, hands=T3_HANDS, stock=["6C", "AH"], attacker=0, first_bout=False)
    play(game, (0, "attack 8S"))
    assert attacks(game, 4) == {"attack 8D"}  # seat 4 sits next to the opener
    assert legal(game, 2) == set() and legal(game, 3) == set()
    refused(game, 2, "attack 8C", "T3")
    refused(game, 3, "attack 8H", "T3")
    play(game, (1, "defend 8S with JS"))
    assert game.to_move() == [0, 4]  # seats 2 and 3 are not asked to pass
    events = play(game, (0, "pass"), (4, "pass"))
    assert "bout_end" in kinds(events)


def test_t3_house_rule_everyone_throws_in():
    """T3 / R10: in the house rules every player but the defender may throw in."""
    game = Game.from_layout(Rules(players=5), hands=T3_HANDS, stock=["6C", "AH"], attacker=0, first_bout=False)
    play(game, (0, "attack 8S"))
    assert attacks(game, 2) == {"attack 8C"} and attacks(game, 3) == {"attack 8H"}
    play(game, (1, "defend 8S with JS"))
    assert game.to_move() == [0, 2, 3, 4]


def test_t3_neighbours_are_counted_among_players_still_in_the_game():
    """T3 read with the book's "next player" (next seat still in the game): when seat 4
    has left, seat 3 sits next to the opener."""
    hands = [["8S", "QD"], ["JS", "KC", "AC"], ["8C", "9D"], ["8H", "9C"], []]
    game = Game.from_layout(NEIGHBOURS5, hands=hands, trump="H", attacker=0)
    play(game, (0, "attack 8S"))
    assert attacks(game, 3) == {"attack 8H"}
    refused(game, 2, "attack 8C", "T3")


def test_t3_a_player_who_transferred_may_throw_in():
    """T3: ... plus anyone who transferred (R22: the transferring player becomes an
    attacker)."""
    rules = Rules(variant="perevodnoy", players=6, throw_in="neighbours")
    game = Game.from_layout(
        rules,
        hands=[
            ["8S", "QD"],
            ["8D", "9C"],
            ["8C", "10D", "KD"],
            ["10S", "10C", "AD", "KS"],
            ["10H", "JC"],
            ["6D", "7D"],
        ],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 8S"), (1, "transfer 8D"), (2, "transfer 8C"))
    assert game.defender == 3
    play(game, (3, "defend 8S with 10S"))
    assert "attack 10D" in legal(game, 2)  # seat 2 transferred
    refused(game, 4, "attack 10H", "T3")  # seat 4 neither neighbour nor transferrer
    play(game, (3, "defend 8D with AD"), (3, "defend 8C with 10C"))
    assert game.to_move() == [0, 1, 2, 5]


# ------------------------------------------------------------------- T4

TEAMS6 = Rules(players=6, partners=True)


def test_t4_teams_of_three_the_defenders_teammates_do_not_throw_in():
    """T4 with R10: seats 0+2+4 against 1+3+5; the defender's teammates do not throw
    in, the attacker's do."""
    game = Game.from_layout(
        TEAMS6,
        hands=[["8S", "QD"], ["JS", "KC", "AC"], ["8C", "9D"], ["8H", "9C"], ["8D", "10C"], ["9S", "10D"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    assert game.defender == 1
    play(game, (0, "attack 8S"))
    assert attacks(game, 2) == {"attack 8C"} and attacks(game, 4) == {"attack 8D"}
    assert legal(game, 3) == set() and legal(game, 5) == set()
    refused(game, 3, "attack 8H", "partner")
    play(game, (1, "defend 8S with JS"))
    assert game.to_move() == [0, 2, 4]


def test_t4_the_defender_is_the_next_player_of_the_other_team():
    """T4 with R7: with seat 1 out, seat 0 attacks seat 3 (seat 2 is his teammate)."""
    hands = [["8S"], [], ["8C"], ["8H"], ["8D"], ["9S"]]
    game = Game.from_layout(TEAMS6, hands=hands, trump="H", attacker=0)
    assert game.defender == 3
    assert Game.from_layout(TEAMS6, hands=hands, trump="H", attacker=2).defender == 3
    assert Game.from_layout(TEAMS6, hands=hands, trump="H", attacker=3).defender == 4
    assert Game.from_layout(TEAMS6, hands=hands, trump="H", attacker=5).defender == 0


def test_t4_the_team_left_holding_cards_loses_sharing_the_last_place():
    """T4 with R21: when everyone still holding cards is on one team, that team loses."""
    game = Game.from_layout(
        TEAMS6,
        hands=[["7S"], ["8S", "9S"], [], ["QC"], [], ["KC"]],
        trump="H",
        attacker=0,
    )
    assert game.places == {2: 1, 4: 1}
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"))
    assert game.is_over
    assert game.durak is None
    assert sorted(game.losers) == [1, 3, 5]
    assert game.places == {0: 3, 1: 4, 2: 1, 3: 4, 4: 1, 5: 4}


# ------------------------------------------------------------------- T6

SWAP = Rules(trump_six_swap=True)
T6_HANDS = [["7S", "QD", "KD", "9C", "10C", "JC"], ["6H", "8S", "9D", "10D", "JD", "QC"]]
T6_STOCK = ["6C", "7C", "8C", "QH"]


def test_t6_trump_six_swapped_for_the_face_up_trump_before_the_stock_is_touched():
    """T6: the holder of the trump six may swap it for the face-up trump under the stock
    before the stock is touched (he need not be on move)."""
    game = Game.from_layout(SWAP, hands=T6_HANDS, stock=T6_STOCK, attacker=0)
    assert legal(game, 1) == {"swap 6H"}
    assert game.to_move() == [0]
    events = play(game, (1, "swap 6H"))
    assert events == [{"type": "swap", "seat": 1, "card": "6H", "took": "QH", "visible_to": None}]
    assert "QH" in game.hand(1) and "6H" not in game.hand(1)
    assert game.stock[-1] == "6H" and game.stock_size == 4
    assert game.trump == "H"
    for viewer in (None, 0, 1):
        view = game.view(viewer)
        assert view["trump_card"] == "6H" and view["trump_card_in_stock"] is True
        assert "QH" in view["seats"][1]["known"]  # everyone saw which card he took
    assert legal(game, 1) == set()
    assert game.to_move() == [0]


def test_t6_swap_is_allowed_during_the_first_bout_until_the_first_draw():
    """T6: "before the stock is touched": the first bout is fine, after its draw it is too late."""
    game = Game.from_layout(SWAP, hands=T6_HANDS, stock=T6_STOCK, attacker=0)
    play(game, (0, "attack 7S"))
    assert "swap 6H" in legal(game, 1)
    keep = game.copy()
    play(game, (1, "swap 6H"))
    assert game.hand(1)[0] == "QH"
    play(keep, (1, "defend 7S with 8S"), (0, "pass"))  # the bout ends, the stock is drawn from
    assert "swap 6H" not in legal(keep, 1)
    refused(keep, 1, "swap 6H", "T6")


def test_t6_no_swap_once_the_stock_has_been_touched():
    """T6: a later position (the stock already drawn from) allows no swap."""
    game = Game.from_layout(SWAP, hands=T6_HANDS, stock=T6_STOCK, attacker=0, first_bout=False)
    refused(game, 1, "swap 6H", "touched")


def test_t6_only_the_trump_six_is_swapped():
    """T6: only the holder of the trump six swaps, and only the six."""
    game = Game.from_layout(SWAP, hands=T6_HANDS, stock=T6_STOCK, attacker=0)
    refused(game, 1, "swap 8S", "six")
    refused(game, 0, "swap 6H", "hold")


def test_t6_off_in_the_house_rules():
    """T6 is off by default."""
    game = Game.from_layout(Rules(), hands=T6_HANDS, stock=T6_STOCK, attacker=0)
    assert legal(game, 1) == set()
    refused(game, 1, "swap 6H", "T6")


def test_t6_needs_a_deck_with_sixes():
    """T6 with T1: the 24-card deck has no six to swap."""
    with pytest.raises(ValueError, match="six"):
        Rules(deck=24, trump_six_swap=True)


# ------------------------------------------------------------------- T7


@pytest.mark.parametrize(
    "hand, card",
    [
        (["AS", "6H", "7D", "QC"], "7D"),
        (["AS", "6H"], "AS"),  # non-trumps before trumps
        (["KH", "8H"], "8H"),  # only trumps: the lowest trump
        (["9C"], "9C"),
    ],
)
def test_t7_timeout_opener_plays_his_lowest_card(hand, card):
    """T7: when the timer runs out the server acts: an opener plays his lowest card
    (every non-trump counts lower than every trump)."""
    game = Game.from_layout(
        Rules(),
        hands=[hand, ["8S", "9D", "10D"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    action = game.timeout_action(0)
    assert isinstance(action, Action)
    assert action == f"attack {card}"
    assert str(action) in legal(game, 0)
    assert game.timeout_action(1) is None  # nothing waits on seat 1


def test_t7_timeout_defender_takes_and_throwers_pass():
    """T7: a defender takes, a thrower passes."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "7D", "QC"], ["8S", "9S", "10S", "KD"], ["8C", "JD"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"))
    assert game.to_move() == [1]
    assert game.timeout_action(1) == "take"
    assert game.timeout_action(0) is None and game.timeout_action(2) is None
    play(game, (1, "defend 7S with 8S"))
    assert game.timeout_action(0) == "pass" and game.timeout_action(2) == "pass"
    assert game.timeout_action(1) is None
    play(game, (0, "attack 7D"))
    play(game, (1, game.timeout_action(1)))
    assert game.view(None)["taking"] is True
    assert game.timeout_action(0) == "pass" and game.timeout_action(2) == "pass"
    play(game, (0, game.timeout_action(0)), (2, game.timeout_action(2)))
    assert len(game.hand(1)) == 6


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=2),
        Rules(players=4),
        Rules(variant="perevodnoy", players=3),
        Rules(players=4, partners=True),
        Rules(players=6, partners=True),
        Rules(variant="perevodnoy", players=5, trump_show_transfer=True, trump_six_swap=True),
    ],
    ids=lambda r: f"{r.variant}-{r.players}{'-partners' if r.partners else ''}",
)
def test_t7_the_timeout_action_is_always_legal(rules):
    """T7: whoever the game waits for, the server's action for him is a legal one.

    (A table that only ever times out need not finish: with three players each
    takes one card per round and plays one.)
    """
    for seed in range(5):
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        for _ in range(300):
            if game.is_over:
                break
            waiting = game.to_move()
            assert waiting
            for seat in range(rules.players):
                action = game.timeout_action(seat)
                if seat in waiting:
                    assert action in game.legal_actions(seat)
                else:
                    assert action is None
            seat = rng.choice(waiting)
            game.act(seat, game.timeout_action(seat))


def test_t7_two_players_who_only_time_out_still_finish():
    """T7: with two players the opener keeps attacking and the defender keeps taking,
    so the opener runs out and the game ends."""
    game = Game.new(Rules(), seed=4)
    opener = game.attacker
    while not game.is_over:
        (seat,) = game.to_move()
        game.act(seat, game.timeout_action(seat))
    assert game.durak == 1 - opener
