"""The rule book, part 2: a bout (docs/rules.md R7-R15).

Every test builds its position by hand with `Game.from_layout` and plays the
rule out through `game.act`, the way a table would.
"""

import pytest

from games.engine import Game, Rules
from tests.engine.rulebook import attacks, defences, kinds, legal, play, refused, table

# --------------------------------------------------------------- helpers


def bout_end(events):
    (end,) = [e for e in events if e["type"] == "bout_end"]
    return end


STOCK = ["6C", "AH"]  # a small stock; AH face up, hearts are trump


# ------------------------------------------------------------------- R7


@pytest.mark.parametrize("attacker, defender", [(0, 1), (1, 2), (2, 0)])
def test_r7_defender_is_the_next_player_after_the_attacker(attacker, defender):
    """R7: every bout is an attack on the next player after the attacker."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "8S"], ["9S", "10S"], ["JS", "QS"]],
        stock=STOCK,
        attacker=attacker,
    )
    assert (game.attacker, game.defender) == (attacker, defender)
    assert game.view(None)["defender"] == defender


def test_r7_next_player_skips_a_player_who_has_left():
    """R7: "the next player" is the next seat clockwise still in the game."""
    game = Game.from_layout(Rules(players=3), hands=[["7S"], [], ["JS"]], trump="H", attacker=0)
    assert game.defender == 2


def test_r7_partners_defender_is_the_next_player_who_is_not_a_partner():
    """R7: in partners play the defender is the next player after the attacker who is
    not the attacker's partner."""
    rules = Rules(players=4, partners=True)
    full = [["7S"], ["8S"], ["9S"], ["10S"]]
    assert Game.from_layout(rules, hands=full, stock=STOCK, attacker=0).defender == 1
    assert Game.from_layout(rules, hands=full, stock=STOCK, attacker=1).defender == 2
    # seat 1 has left: after 0 comes 2, his own partner, so 3 defends
    hands = [["7S", "8S"], [], ["9S", "10S"], ["JS", "QS"]]
    assert Game.from_layout(rules, hands=hands, trump="H", attacker=0).defender == 3
    assert Game.from_layout(rules, hands=hands, trump="H", attacker=2).defender == 3
    assert Game.from_layout(rules, hands=hands, trump="H", attacker=3).defender == 0


# ------------------------------------------------------------------- R8


def test_r8_only_the_attacker_opens_and_with_any_card():
    """R8: the attacker opens the bout with any one card; only he plays the first card."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "9D", "KH"], ["8S", "10D", "QC"], ["7D", "JS", "AC"]],
        stock=STOCK,
        attacker=0,
        first_bout=False,
    )
    assert legal(game, 0) == {"attack 7S", "attack 9D", "attack KH"}  # a trump too
    assert legal(game, 1) == set()
    assert legal(game, 2) == set()
    assert game.to_move() == [0]
    refused(game, 2, "attack 7D", "R8")
    refused(game, 1, "attack 8S", "R8")
    refused(game, 1, "take")
    refused(game, 0, "pass", "R8")
    refused(game, 2, "pass", "R8")
    play(game, (0, "attack KH"))
    assert table(game) == [("KH", None)]


# ------------------------------------------------------------------- R9


def test_r9_beat_with_a_higher_card_of_the_suit_or_any_trump():
    """R9: a higher card of the same suit, or a trump if the attack card is not a trump."""
    game = Game.from_layout(
        Rules(),
        hands=[["9S", "9D", "KC"], ["10S", "8S", "6H", "7D", "KD", "QC"]],
        stock=STOCK,
        attacker=0,
    )
    play(game, (0, "attack 9S"), (0, "attack 9D"))
    assert defences(game, 1) == {
        "defend 9S with 10S",
        "defend 9S with 6H",
        "defend 9D with KD",
        "defend 9D with 6H",
    }
    refused(game, 1, "defend 9S with 8S", "R9")  # lower, same suit
    refused(game, 1, "defend 9S with KD", "R9")  # higher, other suit
    refused(game, 1, "defend 9D with 7D", "R9")
    refused(game, 1, "defend 9D with QC", "R9")


def test_r9_a_trump_is_beaten_only_by_a_higher_trump():
    """R9: a trump is beaten only by a higher trump."""
    game = Game.from_layout(
        Rules(),
        hands=[["8H", "7C"], ["7H", "10H", "AS", "KD"]],
        stock=STOCK,
        attacker=0,
    )
    play(game, (0, "attack 8H"))
    assert defences(game, 1) == {"defend 8H with 10H"}
    refused(game, 1, "defend 8H with 7H", "R9")
    refused(game, 1, "defend 8H with AS", "R9")


def test_r9_the_defender_chooses_which_uncovered_card_to_beat():
    """R9: the defender chooses which uncovered card to beat."""
    game = Game.from_layout(
        Rules(),
        hands=[["9S", "9D", "KC"], ["10S", "8S", "6H", "7D", "KD", "QC"]],
        stock=STOCK,
        attacker=0,
    )
    play(game, (0, "attack 9S"), (0, "attack 9D"), (1, "defend 9D with KD"))
    assert table(game) == [("9S", None), ("9D", "KD")]
    refused(game, 1, "defend 9D with 6H")  # already covered
    play(game, (1, "defend 9S with 10S"))
    assert table(game) == [("9S", "10S"), ("9D", "KD")]


# ------------------------------------------------------------------ R10


def r10_game():
    return Game.from_layout(
        Rules(players=3),
        hands=[["8S", "8D", "9C"], ["JS", "QD", "KC", "6D"], ["JD", "8C", "9D", "10C"]],
        stock=STOCK,
        attacker=0,
        first_bout=False,
    )


def test_r10_throw_in_a_rank_from_the_attack_or_the_defence():
    """R10: a thrown-in card's rank must already be on the table, on either side."""
    game = r10_game()
    play(game, (0, "attack 8S"))
    assert attacks(game, 2) == {"attack 8C"}
    play(game, (1, "defend 8S with JS"))
    assert attacks(game, 2) == {"attack 8C", "attack JD"}  # J from the defence card
    assert attacks(game, 0) == {"attack 8D"}
    refused(game, 2, "attack 9D", "R10")
    refused(game, 0, "attack 9C", "R10")
    play(game, (2, "attack JD"))
    assert table(game) == [("8S", "JS"), ("JD", None)]


def test_r10_no_priority_any_thrower_may_add_before_the_attacker():
    """R10: after the opening card every player except the defender may add a card;
    there is no priority among throwers (not even while the card is uncovered)."""
    game = r10_game()
    play(game, (0, "attack 8S"), (2, "attack 8C"))
    assert table(game) == [("8S", None), ("8C", None)]
    play(game, (0, "attack 8D"))
    assert table(game) == [("8S", None), ("8C", None), ("8D", None)]


def test_r10_the_defender_cannot_throw_in():
    """R10: every player except the defender may throw in."""
    game = r10_game()
    play(game, (0, "attack 8S"), (1, "defend 8S with JS"))
    refused(game, 1, "attack QD", "R10")
    refused(game, 1, "attack 6D", "R10")


def test_r10_the_defenders_partner_cannot_throw_in():
    """R10: in partners play the defender's partner does not throw in; the attacker's
    partner does."""
    game = Game.from_layout(
        Rules(players=4, partners=True),
        hands=[["8S", "9C"], ["JS", "QD", "KC"], ["8C", "10D"], ["8D", "7C"]],
        stock=STOCK,
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 8S"))
    assert legal(game, 3) == set()
    refused(game, 3, "attack 8D", "partner")
    assert "attack 8C" in legal(game, 2)
    play(game, (1, "defend 8S with JS"))
    assert game.to_move() == [0, 2]  # seat 3 is not even asked to pass
    assert legal(game, 3) == set()
    refused(game, 3, "pass")
    assert game.view(3)["seats"][3]["to_move"] is False


# ------------------------------------------------------------------ R11


def test_r11_uncovered_cards_never_outnumber_defender_hand():
    """R11: the uncovered cards on the table may never outnumber the cards in the
    defender's hand."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "7D", "7C", "9H"], ["KC", "QC"], ["7H", "10H"]],
        stock=["6H", "AC"],  # clubs are trump
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (2, "attack 7H"))  # 2 uncovered, 2 in hand
    assert attacks(game, 0) == set()
    refused(game, 0, "attack 7D", "R11")
    play(game, (1, "defend 7S with QC"))  # 1 uncovered, 1 in hand
    refused(game, 0, "attack 7D", "R11")
    refused(game, 0, "attack 7C", "R11")
    events = play(game, (1, "defend 7H with KC"))  # no cards left: the bout ends at once
    assert bout_end(events)["result"] == "discard"


def test_r11_after_taking_the_limit_counts_the_cards_in_his_hand_now():
    """R11 with R13: after "take", throw-ins are limited by the cards the defender holds
    now (not counting the table he is about to pick up)."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "8D", "9H"], ["8S", "QH", "KH"], ["7D", "10D"]],
        stock=["6H", "AC"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (2, "attack 7D"), (1, "take"))
    assert len(game.hand(1)) == 2 and game.uncovered() == ["7D"]
    assert attacks(game, 0) == {"attack 8D"}  # one more makes 2 uncovered against 2 cards
    events = play(game, (0, "attack 8D"))
    # now nobody can add a card (R11), so the bout ends at once (R15)
    assert bout_end(events)["result"] == "pick_up"
    assert sorted(game.hand(1)) == sorted(["QH", "KH", "7S", "8S", "7D", "8D"])


def test_r11_take_with_as_many_uncovered_as_cards_in_hand_ends_the_bout_at_once():
    """R11: a defender who holds one card and takes one uncovered card gets nothing more."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "7D"], ["QH"], ["7C", "10D"]],
        stock=["6H", "AC"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"))
    assert attacks(game, 0) == set() and attacks(game, 2) == set()
    events = play(game, (1, "take"))
    assert kinds(events)[:2] == ["take", "bout_end"]
    assert sorted(game.hand(1)) == ["7S", "QH"]


# ------------------------------------------------------------------ R12


def r12_game(first_bout):
    pairs = [("7S", "8S"), ("7D", "8D"), ("8C", "9C"), ("9S", "10S")]
    if not first_bout:
        pairs.append(("10C", "JC"))
    return Game.from_layout(
        Rules(),
        hands=[["7C", "10D", "JD"], ["AC", "6H", "7H", "QS", "KS", "AS"]],
        stock=STOCK,
        attacker=0,
        first_bout=first_bout,
        table=pairs,
    )


def test_r12_at_most_five_attack_cards_in_the_first_bout():
    """R12: at most 5 attack cards in the first bout of the game."""
    game = r12_game(first_bout=True)
    assert game.view(0)["attack_limit"] == 5
    assert attacks(game, 0) == {"attack 7C", "attack 10D"}
    play(game, (0, "attack 7C"))  # the fifth
    assert attacks(game, 0) == set()
    reason = refused(game, 0, "attack 10D", "R12")
    assert "first bout" in reason
    events = play(game, (1, "defend 7C with AC"))
    # the limit is reached: the bout ends at once, nobody is asked to pass (R15)
    assert bout_end(events)["result"] == "discard"
    assert "pass" not in kinds(events)


def test_r12_at_most_six_attack_cards_in_later_bouts():
    """R12: at most 6 attack cards in one bout."""
    game = r12_game(first_bout=False)
    discard = game.discard_size
    assert game.view(0)["attack_limit"] == 6
    play(game, (0, "attack 7C"))  # the sixth
    refused(game, 0, "attack 10D", "R12")
    events = play(game, (1, "defend 7C with AC"))
    assert bout_end(events)["result"] == "discard"
    assert game.discard_size == discard + 12


def test_r12_second_bout_allows_six():
    """R12: the five-card limit is for the first bout only; it lifts when that bout ends."""
    game = Game.from_layout(
        Rules(),
        hands=[["7S", "QD"], ["8S", "9D"]],
        stock=["6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AH"],
        attacker=0,
    )
    assert game.view(None)["first_bout"] is True and game.attack_limit == 5
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (0, "pass"))
    assert game.view(None)["first_bout"] is False and game.attack_limit == 6


# ------------------------------------------------------------------ R13


def r13_game():
    return Game.from_layout(
        Rules(players=3),
        hands=[["7S", "7D", "QC"], ["8S", "9S", "10S", "KD"], ["8C", "JD"]],
        stock=STOCK,
        attacker=0,
        first_bout=False,
    )


def test_r13_take_then_throw_ins_then_pick_up_every_card():
    """R13: the defender may take; the others may still throw in; he picks up every card
    on the table, attack and defence."""
    game = r13_game()
    discard = game.discard_size
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (0, "attack 7D"))
    events = play(game, (1, "take"))
    assert [e["type"] for e in events] == ["take"]
    assert game.view(None)["taking"] is True
    assert legal(game, 1) == set()
    refused(game, 1, "defend 7D with KD", "R13")
    refused(game, 1, "take", "R13")
    assert game.to_move() == [0, 2]
    assert "attack 8C" in legal(game, 2)  # rank 8 from the defence card
    events = play(game, (2, "attack 8C"), (0, "pass"), (2, "pass"))
    end = bout_end(events)
    assert end["result"] == "pick_up" and end["defender"] == 1
    assert sorted(end["cards"]) == sorted(["7S", "8S", "7D", "8C"])
    assert sorted(game.hand(1)) == sorted(["9S", "10S", "KD", "7S", "8S", "7D", "8C"])
    assert game.discard_size == discard
    assert game.table == []
    # everyone saw what he picked up
    for viewer in (None, 0, 2):
        assert {"7S", "8S", "7D", "8C"} <= set(game.view(viewer)["seats"][1]["known"])


def test_r13_the_defender_may_take_at_any_moment_while_a_card_is_uncovered():
    """R13: take is possible while a card is uncovered -- right after the opening card too."""
    game = r13_game()
    play(game, (0, "attack 7S"))
    assert "take" in legal(game, 1)
    play(game, (1, "defend 7S with 8S"))
    refused(game, 1, "take")  # nothing uncovered
    play(game, (0, "attack 7D"))
    assert "take" in legal(game, 1)


# ------------------------------------------------------------------ R14


def test_r14_all_covered_and_nobody_throws_in_the_table_goes_to_the_discard():
    """R14: when every card is covered and nobody throws in, "Бито": the table goes to
    the discard pile."""
    game = Game.from_layout(Rules(), hands=[["7S", "QC"], ["8S", "9D"]], stock=STOCK, attacker=0, first_bout=False)
    discard = game.discard_size
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"))
    refused(game, 1, "take", "R14")
    events = play(game, (0, "pass"))
    end = bout_end(events)
    assert end["result"] == "discard" and sorted(end["cards"]) == ["7S", "8S"]
    assert game.discard_size == discard + 2
    assert game.table == []
    assert (game.attacker, game.defender) == (1, 0)


# ------------------------------------------------------------------ R15


def r15_game(third_hand):
    return Game.from_layout(
        Rules(players=3),
        hands=[["7S", "8D", "QC"], ["8S", "9D", "KD", "10C"], third_hand],
        stock=STOCK,
        attacker=0,
        first_bout=False,
    )


def test_r15_pass_only_when_every_card_is_covered_or_after_take():
    """R15: a pass is only possible when every card is covered, or after the defender
    has taken."""
    game = r15_game(["JS", "9C"])
    play(game, (0, "attack 7S"))
    refused(game, 0, "pass", "R15")
    refused(game, 2, "pass", "R15")
    refused(game, 1, "pass")  # the defender never passes
    play(game, (1, "defend 7S with 8S"))
    assert "pass" in legal(game, 0) and "pass" in legal(game, 2)
    taken = r15_game(["JS", "9C"])
    play(taken, (0, "attack 7S"), (1, "take"))
    assert "pass" in legal(taken, 0) and "pass" in legal(taken, 2)


def test_r15_a_player_without_a_matching_card_still_must_pass():
    """R15: a player with no matching card still passes: the engine must not reveal who
    holds what."""
    game = r15_game(["JS", "9C"])
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"))
    assert game.to_move() == [0, 2]
    assert legal(game, 2) == {"pass"}
    events = play(game, (0, "pass"))
    assert "bout_end" not in kinds(events)
    assert game.to_move() == [2]
    assert table(game) == [("7S", "8S")]
    events = play(game, (2, "pass"))
    assert bout_end(events)["result"] == "discard"


def test_r15_bout_ends_when_every_thrower_has_passed():
    """R15: the bout ends (R14) when every player who may still throw in has passed."""
    game = r15_game(["JS", "8C"])
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (2, "pass"))
    assert game.table and game.to_move() == [0]
    events = play(game, (0, "pass"))
    assert kinds(events)[:2] == ["pass", "bout_end"]


def test_r15_having_passed_a_player_adds_nothing_until_another_card_arrives():
    """R15: having passed, a player adds nothing until another card reaches the table."""
    game = r15_game(["JS", "8C"])
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (0, "pass"))
    refused(game, 0, "attack 8D", "R15")
    refused(game, 0, "pass")
    play(game, (2, "attack 8C"))
    assert "attack 8D" in legal(game, 0)


def test_r15_any_card_added_withdraws_all_passes():
    """R15: any card added to the table withdraws all passes: everyone is asked again."""
    game = r15_game(["JS", "9C"])
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (2, "pass"))
    assert game.view(0)["seats"][2]["passed"] is True
    play(game, (0, "attack 8D"))
    assert game.view(0)["seats"][2]["passed"] is False
    play(game, (1, "defend 8D with KD"))
    assert game.to_move() == [0, 2]
    events = play(game, (0, "pass"))
    assert "bout_end" not in kinds(events)
    events = play(game, (2, "pass"))
    assert "bout_end" in kinds(events)


def test_r15_bout_ends_at_once_when_the_defender_has_no_cards_left():
    """R15: the bout ends at once when nobody can add a card because the defender has
    no cards left (the stock still has cards, so he stays in the game)."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "7D"], ["8S"], ["8C", "10D"]],
        stock=["6C", "9C", "JC", "QC", "KC", "6D", "8D", "9D", "JD", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"))
    events = play(game, (1, "defend 7S with 8S"))
    # 0 still holds 7D and 2 holds 8C, but nobody is asked
    assert kinds(events)[:2] == ["defend", "bout_end"]
    assert "left" not in kinds(events)
    assert game.places == {}
    draws = [(e["seat"], e["count"]) for e in events if e["type"] == "draw"]
    assert draws == [(0, 5), (2, 4), (1, 1)]


def test_r15_a_player_with_no_cards_before_the_stock_is_empty_is_not_asked():
    """R15: a player holding no cards at all (the stock not yet empty) is not a thrower:
    nothing is asked of him."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["7S", "8D"], ["8S", "KD"], []],
        stock=["6C", "9C", "10C", "JC", "QC", "6D", "7D", "AH"],
        attacker=0,
        first_bout=False,
    )
    assert game.places == {}
    assert game.view(None)["seats"][2]["in_game"] is True
    play(game, (0, "attack 7S"), (1, "defend 7S with 8S"))
    assert game.to_move() == [0]
    assert legal(game, 2) == set()
    refused(game, 2, "pass")
    events = play(game, (0, "pass"))
    assert bout_end(events)["result"] == "discard"
    draws = [(e["seat"], e["count"]) for e in events if e["type"] == "draw"]
    assert draws == [(0, 5), (2, 3)]  # opener, then clockwise; the stock ran out
