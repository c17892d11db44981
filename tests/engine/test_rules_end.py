"""The rule book, part 3: drawing, the next bout, leaving, places and the end
(docs/rules.md R16-R21)."""

import json

import pytest

from games.engine import Game, Rules
from tests.engine.rulebook import (
    draws,
    game_over,
    kinds,
    legal,
    next_bout,
    of_type,
    play,
    refused,
)

# ------------------------------------------------------------------ R16


def test_r16_draw_opener_first_then_clockwise_defender_last():
    """R16: after the bout each player draws up to 6: first the player who opened the
    bout, then the others clockwise from him, the defender last. When the stock runs
    out the rest draw nothing."""
    game = Game.from_layout(
        Rules(players=4),
        hands=[
            ["7C", "8C", "8S", "KH", "AC"],
            ["9C", "JH", "QS", "6C", "6S", "6H"],
            ["7H", "10C", "10S", "KC", "KS", "AH"],
            ["9S", "JC", "JS", "QC", "QH", "AS"],
        ],
        stock=["7S", "9H", "10D", "9D", "AD"],  # diamonds are trump
        attacker=0,
        first_bout=False,
    )
    events = play(
        game,
        (0, "attack 7C"),
        (1, "defend 7C with 9C"),
        (2, "attack 7H"),
        (1, "defend 7H with JH"),
        (3, "attack 9S"),
        (1, "defend 9S with QS"),
        (0, "pass"),
        (2, "pass"),
        (3, "pass"),
    )
    # the defender needed 3 but the stock ran out after one card
    assert draws(events) == [(0, ["7S", "9H"]), (2, ["10D"]), (3, ["9D"]), (1, ["AD"])]
    assert [len(game.hand(s)) for s in range(4)] == [6, 4, 6, 6]
    assert game.stock_size == 0
    assert kinds(events).index("bout_end") < kinds(events).index("draw")


def test_r16_clockwise_from_the_opener_wraps_round_the_table():
    """R16: "clockwise from him" starts at the opener whatever his seat number; here
    the stock runs out before the defender's turn."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[
            ["8H", "6C", "7C", "8C", "9C", "10C"],
            ["JD", "QD", "KD", "AD", "6D"],
            ["7H", "QC", "KC", "AC", "9D", "10D"],
        ],
        stock=["JH", "AS"],
        attacker=2,
        first_bout=False,
    )
    assert game.defender == 0
    events = play(game, (2, "attack 7H"), (0, "defend 7H with 8H"), (1, "pass"), (2, "pass"))
    assert draws(events) == [(2, ["JH"]), (1, ["AS"])]  # 0, the defender, gets nothing
    assert len(game.hand(0)) == 5


def test_r16_a_defender_who_took_draws_last_and_only_up_to_six():
    """R16: the defender draws last; a hand of 6 or more draws nothing."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "QD"], ["8H", "9D", "10D", "JD", "KD", "AD"], ["JS", "10C"]],
        stock=["6C", "7C", "8C", "9C", "QC", "KC", "6D", "7D", "8D", "6S", "AH"],
        attacker=0,
        first_bout=False,
    )
    events = play(game, (0, "attack 7S"), (1, "take"), (0, "pass"), (2, "pass"))
    assert [seat for seat, _ in draws(events)] == [0, 2]
    assert len(game.hand(1)) == 7


# ------------------------------------------------------------------ R17


def r17_game():
    return Game.from_layout(
        Rules(players=3),
        hands=[["7S", "QD"], ["8S", "9D"], ["JS", "10D"]],
        stock=["6C", "7C", "8C", "9C", "AH"],
        attacker=0,
        first_bout=False,
    )


def test_r17_a_defender_who_beat_everything_attacks_next():
    """R17: if the defender beat everything, he attacks next."""
    game = r17_game()
    events = play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (0, "pass"), (2, "pass"))
    assert next_bout(events) == (1, 2)
    assert (game.attacker, game.defender) == (1, 2)
    assert game.to_move() == [1]


def test_r17_a_defender_who_took_loses_his_turn():
    """R17: if he took, he loses his turn: the next player after him attacks."""
    game = r17_game()
    events = play(game, (0, "attack 7S"), (1, "take"), (0, "pass"), (2, "pass"))
    assert next_bout(events) == (2, 0)


def test_r17_partners_after_a_take_the_next_player_attacks_the_next_opponent():
    """R17 with R7: in pairs, after 1 takes, 2 attacks and 3 (2's next opponent) defends."""
    game = Game.from_layout(
        Rules(players=4, partners=True),
        hands=[["7S", "QD"], ["8S", "9D"], ["JS", "10D"], ["KS", "KD"]],
        stock=["6C", "7C", "8C", "9C", "AH"],
        attacker=0,
        first_bout=False,
    )
    events = play(game, (0, "attack 7S"), (1, "take"), (0, "pass"), (2, "pass"))
    assert next_bout(events) == (2, 3)


def test_r17_a_defender_who_beat_everything_and_left_the_next_player_attacks():
    """R17: if the defender beat everything but has left the game, the next player after
    him attacks."""
    game = Game.from_layout(Rules(players=3), hands=[["7S", "7D"], ["8S"], ["9C", "10D"]], trump="H", attacker=0)
    events = play(game, (0, "attack 7S"), (1, "defend 7S with 8S"))
    assert game.places == {1: 1}
    assert next_bout(events) == (2, 0)


def test_r17_a_defender_who_took_skips_seats_that_have_left():
    """R17: "the next player after him" skips players who are out."""
    game = Game.from_layout(
        Rules(players=4),
        hands=[["7S", "QD"], ["8S", "9D"], [], ["JS", "10D"]],
        trump="H",
        attacker=0,
    )
    events = play(game, (0, "attack 7S"), (1, "take"), (0, "pass"), (3, "pass"))
    assert next_bout(events) == (3, 0)


# ------------------------------------------------------------------ R18


def test_r18_with_the_stock_empty_a_player_without_cards_leaves_mid_bout():
    """R18: once the stock is empty a player with no cards is out of the game -- even in
    the middle of a bout; he is asked nothing more."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S"], ["8S", "9S", "KD"], ["7D", "QC"]],
        trump="H",
        attacker=0,
    )
    events = play(game, (0, "attack 7S"))
    assert kinds(events) == ["attack", "left"]
    assert of_type(events, "left")[0] == {"type": "left", "seat": 0, "place": 1, "visible_to": None}
    assert game.places == {0: 1}
    view = game.view(2)
    assert view["seats"][0]["in_game"] is False and view["seats"][0]["place"] == 1
    assert legal(game, 0) == set()
    refused(game, 0, "pass", "left")
    play(game, (1, "defend 7S with 8S"))
    assert game.to_move() == [2]  # seat 0 is no longer asked to pass
    play(game, (2, "attack 7D"), (1, "defend 7D with KD"))
    events = play(game, (2, "pass"))
    assert not game.is_over
    assert next_bout(events) == (1, 2)


def test_r18_before_the_stock_is_empty_a_player_without_cards_stays_in():
    """R18: only once the stock is empty does an empty hand mean leaving."""
    game = Game.from_layout(
        Rules(),
        hands=[["7S"], ["8S", "KD"]],
        stock=["6C", "7C", "AH"],
        attacker=0,
        first_bout=False,
    )
    events = play(game, (0, "attack 7S"))
    assert "left" not in kinds(events)
    events = play(game, (1, "defend 7S with 8S"))  # nobody else can throw in
    assert "left" not in kinds(events)
    assert draws(events) == [(0, ["6C", "7C", "AH"])]
    assert game.places == {} and not game.is_over
    assert next_bout(events) == (1, 0)


def test_r18_defender_covering_with_his_last_card_ends_the_bout_at_once():
    """R18: nobody throws in to a defender with no cards: a defender who covers
    everything with his last card ends the bout at once."""
    game = Game.from_layout(Rules(players=3), hands=[["7S", "7D"], ["8S"], ["7C", "9C"]], trump="H", attacker=0)
    play(game, (0, "attack 7S"))
    events = play(game, (1, "defend 7S with 8S"))
    assert kinds(events)[:3] == ["defend", "left", "bout_end"]
    assert "pass" not in kinds(events)
    assert game.places == {1: 1}
    assert not game.is_over
    assert next_bout(events) == (2, 0)


def test_r18_an_empty_hand_left_when_the_stock_runs_out_in_the_draw_leaves():
    """R18: the defender covered with his last card while the stock still had a card; the
    opener draws that card, the stock is empty, so the defender is out (and wins)."""
    game = Game.from_layout(Rules(), hands=[["7S", "QD"], ["8S"]], stock=["AH"], attacker=0, first_bout=False)
    play(game, (0, "attack 7S"))
    events = play(game, (1, "defend 7S with 8S"))
    assert kinds(events) == ["defend", "bout_end", "draw", "left", "game_over"]
    assert draws(events) == [(0, ["AH"])]
    assert game.places == {1: 1, 0: 2}
    assert game.durak == 0


# ------------------------------------------------------------------ R19


def test_r19_places_follow_the_order_of_leaving_and_are_shared_within_a_bout():
    """R19: a player's place is 1 + the number who left in earlier bouts; players who
    leave in the same bout share that place."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S"], ["8S", "9D", "KC"], ["10D", "6C"]],
        trump="H",
        attacker=0,
    )
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (2, "pass"))
    assert game.places == {0: 1}
    assert (game.attacker, game.defender) == (1, 2)
    play(game, (1, "attack 9D"), (2, "defend 9D with 10D"), (1, "pass"))
    assert (game.attacker, game.defender) == (2, 1)  # seat 0 is out
    events = play(game, (2, "attack 6C"), (1, "defend 6C with KC"))
    assert [(e["seat"], e["place"]) for e in of_type(events, "left")] == [(2, 2), (1, 2)]
    assert game.places == {0: 1, 1: 2, 2: 2}


def test_r19_earlier_leavers_push_the_shared_place_down():
    """R19: one player left in an earlier bout, so two leaving together now share place 2
    and the durak is 4th."""
    game = Game.from_layout(
        Rules(players=4),
        hands=[["7S"], ["8S", "8D", "JD"], ["7D"], []],
        trump="H",
        attacker=0,
        places={3: 1},
    )
    play(game, (0, "attack 7S"), (2, "attack 7D"))
    assert game.places == {3: 1, 0: 2, 2: 2}
    play(game, (1, "defend 7S with 8S"), (1, "defend 7D with 8D"))
    assert game.is_over
    assert game.places == {3: 1, 0: 2, 2: 2, 1: 4}
    assert game.durak == 1


# ------------------------------------------------------------------ R20


def test_r20_the_player_left_with_cards_is_the_durak():
    """R20: the game ends when a bout ends and at most one player holds cards; he is
    the durak (last place)."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S"], ["8S", "QC"], []],
        trump="H",
        attacker=0,
        places={2: 1},
    )
    events = play(game, (0, "attack 7S"), (1, "defend 7S with 8S"))
    over = game_over(events)
    assert over["durak"] == 1 and over["losers"] == [1] and over["draw"] is False
    assert over["places"] == {"0": 2, "1": 3, "2": 1}
    assert game.is_over and game.durak == 1 and game.losers == [1]
    assert game.places == {0: 2, 1: 3, 2: 1}
    assert game.to_move() == []
    assert all(game.legal_actions(s) == [] for s in range(3))
    refused(game, 1, "attack QC", "over")
    assert game.view(None)["is_over"] is True
    json.dumps(over)


def test_r20_nobody_holds_cards_it_is_a_draw():
    """R20: if the last players all left in the same bout and nobody holds cards, there
    is no durak: the game is a draw between them."""
    game = Game.from_layout(Rules(), hands=[["7S"], ["8S"]], trump="H", attacker=0)
    events = play(game, (0, "attack 7S"))
    assert not game.is_over  # the bout is played out
    events = play(game, (1, "defend 7S with 8S"))
    over = game_over(events)
    assert over["draw"] is True and over["durak"] is None and over["losers"] == []
    assert game.durak is None and game.losers == []
    assert game.places == {0: 1, 1: 1}


@pytest.mark.parametrize(
    "defender_hand, moves, durak, places",
    [
        (["8S", "8D"], ["defend 7S with 8S", "defend 7D with 8D"], None, {0: 1, 1: 1, 2: 1}),
        (["8S", "8D", "AC"], ["defend 7S with 8S", "defend 7D with 8D"], 1, {0: 1, 1: 3, 2: 1}),
        (["8S", "8D", "AC"], ["take"], 1, {0: 1, 1: 3, 2: 1}),
        (["8S", "8D"], ["defend 7D with 8D", "take"], 1, {0: 1, 1: 3, 2: 1}),
    ],
)
def test_r20_a_bout_in_progress_is_always_played_out(defender_hand, moves, durak, places):
    """R20: a bout in progress is always played out: a defender whose attackers have
    all left still covers or takes."""
    game = Game.from_layout(Rules(players=3), hands=[["7S"], defender_hand, ["7D"]], trump="H", attacker=0)
    play(game, (0, "attack 7S"), (2, "attack 7D"))
    assert game.places == {0: 1, 2: 1}
    assert not game.is_over
    assert game.to_move() == [1]
    assert "take" in legal(game, 1)
    play(game, *[(1, move) for move in moves])
    assert game.is_over
    assert game.durak == durak
    assert game.losers == ([] if durak is None else [durak])
    assert game.places == places


# ------------------------------------------------------------------ R21

PAIRS = Rules(players=4, partners=True)


def test_r21_partners_the_durak_s_pair_loses():
    """R21: partners play: the durak's pair loses (his partner too, though he left)."""
    game = Game.from_layout(PAIRS, hands=[[], [], ["7S"], ["8S", "KD"]], trump="H", attacker=2, places={0: 1, 1: 2})
    assert game.defender == 3
    events = play(game, (2, "attack 7S"), (3, "defend 7S with 8S"))
    assert game.is_over
    assert game.durak == 3
    assert sorted(game.losers) == [1, 3]
    assert game.places == {0: 1, 1: 2, 2: 3, 3: 4}
    assert sorted(game_over(events)["losers"]) == [1, 3]


def test_r21_a_pair_left_holding_cards_loses_sharing_the_last_place():
    """R21: the game also ends when every player still holding cards belongs to the
    same pair: that pair loses, sharing the last place; there is no single durak."""
    game = Game.from_layout(PAIRS, hands=[[], ["QC"], ["7S"], ["8S", "KD"]], trump="H", attacker=2, places={0: 1})
    play(game, (2, "attack 7S"))
    assert game.to_move() == [3]
    events = play(game, (3, "defend 7S with 8S"))  # seat 1, 3's partner, cannot throw in
    assert game.is_over
    assert game.durak is None
    assert sorted(game.losers) == [1, 3]
    assert game.places == {0: 1, 2: 2, 1: 3, 3: 3}
    over = game_over(events)
    assert over["durak"] is None and over["draw"] is False


def test_r21_a_player_whose_partner_is_out_plays_on_alone():
    """R21: a player whose partner is out plays on alone (R7: attacked by both opponents
    in turn, and attacking alone)."""
    game = Game.from_layout(
        PAIRS,
        hands=[["7S", "QD", "KD"], ["8S", "9H", "6C"], [], ["10C", "JC"]],
        trump="H",
        attacker=0,
        places={2: 1},
    )
    assert game.defender == 1
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"))
    assert game.to_move() == [0]  # 3 is the defender's partner
    events = play(game, (0, "pass"))
    assert next_bout(events) == (1, 0)  # 2 is out and 3 is 1's partner
    play(game, (1, "attack 9H"), (0, "take"))
    assert game.to_move() == [1, 3]  # both opponents may throw in to him
    events = play(game, (1, "pass"), (3, "pass"))
    assert next_bout(events) == (1, 0)
    assert not game.is_over


def test_r21_partners_nobody_holds_cards_it_is_a_draw():
    """R21: if nobody holds cards at the end, the game is drawn."""
    game = Game.from_layout(PAIRS, hands=[["7S"], ["8S", "8D"], ["7D"], []], trump="H", attacker=0, places={3: 1})
    play(game, (0, "attack 7S"), (2, "attack 7D"))  # 2 may throw in: 3 is out
    assert not game.is_over
    events = play(game, (1, "defend 7S with 8S"), (1, "defend 7D with 8D"))
    over = game_over(events)
    assert over["draw"] is True
    assert game.durak is None and game.losers == []
    assert game.places == {3: 1, 0: 2, 2: 2, 1: 2}


def test_r21_the_game_goes_on_while_both_pairs_hold_cards():
    """R21: with one player of each pair still holding cards the game goes on."""
    game = Game.from_layout(
        PAIRS,
        hands=[["7S", "QD"], [], ["9S"], ["8S", "KD"]],
        trump="H",
        attacker=2,
        places={1: 1},
    )
    events = play(game, (2, "attack 9S"), (3, "take"), (0, "pass"))
    assert game.places == {1: 1, 2: 2}
    assert not game.is_over
    assert next_bout(events) == (0, 3)
