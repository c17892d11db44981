"""The rule book, part 4: perevodnoy, the transfer game (docs/rules.md R22-R26) and
the trump-show option T5."""

import pytest

from games.engine import Game, Rules
from tests.engine.rulebook import (
    draws,
    legal,
    next_bout,
    of_type,
    play,
    refused,
    table,
)

PEREVODNOY = Rules(variant="perevodnoy", players=3)

# --------------------------------------------------------------- helpers


def transfers(game, seat):
    return {a for a in legal(game, seat) if a.startswith(("transfer", "show"))}


def r22_game(rules=PEREVODNOY):
    return Game.from_layout(
        rules,
        hands=[["7S", "QD", "7C"], ["7D", "7H", "8S"], ["KS", "AS", "8C", "9D"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )


# ------------------------------------------------------------------ R22


def test_r22_transfer_adds_a_card_and_the_next_player_defends():
    """R22: instead of beating, the defender adds a card of the attack rank; the next
    player becomes the defender with one more card on the table; the transferring
    player becomes an attacker."""
    game = r22_game()
    play(game, (0, "attack 7S"))
    assert transfers(game, 1) == {"transfer 7D", "transfer 7H"}
    events = play(game, (1, "transfer 7D"))
    assert events[0] == {
        "type": "transfer",
        "seat": 1,
        "card": "7D",
        "defender": 2,
        "visible_to": None,
    }
    assert game.defender == 2
    assert game.attacker == 0  # the opener stays the opener
    assert table(game) == [("7S", None), ("7D", None)]
    assert game.hand(1) == ["7H", "8S"]
    assert game.to_move() == [2]
    assert "take" in legal(game, 2)
    # the transferring player is now an attacker: he may throw in
    assert "attack 7H" in legal(game, 1)
    assert "attack 7C" in legal(game, 0)
    play(game, (1, "attack 7H"))
    assert len(game.table) == 3


def test_r22_no_transfer_once_a_card_is_covered():
    """R22: a transfer is possible only while no card on the table is covered."""
    game = r22_game()
    play(game, (0, "attack 7S"), (0, "attack 7C"), (1, "defend 7S with 8S"))
    assert transfers(game, 1) == set()
    refused(game, 1, "transfer 7D", "R22")


def test_r22_the_transfer_card_has_the_rank_of_the_attack_cards():
    """R22: he adds a card of the same rank as the attack cards."""
    game = r22_game()
    play(game, (0, "attack 7S"))
    refused(game, 1, "transfer 8S", "R22")


def test_r22_podkidnoy_has_no_transfer():
    """R22: transfers are perevodnoy only."""
    game = r22_game(Rules(players=3))
    play(game, (0, "attack 7S"))
    assert transfers(game, 1) == set()
    refused(game, 1, "transfer 7D", "perevodnoy")


def test_r22_partners_the_attack_passes_to_the_next_opponent():
    """R22 with R7 and R10: the next player counted from the transferring player (not his
    partner) defends; the new defender's partner -- here the opener -- may not throw in."""
    game = Game.from_layout(
        Rules(variant="perevodnoy", players=4, partners=True),
        hands=[["7S", "7H"], ["7D", "9C"], ["KS", "AS", "QC"], ["7C", "10C"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (1, "transfer 7D"))
    assert game.defender == 2
    assert legal(game, 0) == set()
    refused(game, 0, "attack 7H", "partner")
    assert "attack 7C" in legal(game, 3)
    play(game, (2, "take"))
    assert game.to_move() == [1, 3]


# ------------------------------------------------------------------ R23


@pytest.mark.parametrize("receiver, allowed", [(["KS", "AS"], False), (["KS", "AS", "10H"], True)])
def test_r23_the_new_defender_must_hold_as_many_cards_as_attack_cards(receiver, allowed):
    """R23: a transfer is allowed only if the new defender holds at least as many cards
    as there will be attack cards on the table."""
    game = Game.from_layout(
        PEREVODNOY,
        hands=[["7S", "7C", "QD"], ["7D", "8S", "9S"], receiver],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (0, "attack 7C"))  # a transfer would make 3
    if allowed:
        assert "transfer 7D" in legal(game, 1)
        play(game, (1, "transfer 7D"))
        assert game.defender == 2
    else:
        reason = refused(game, 1, "transfer 7D", "R23")
        assert "Seat 2" in reason


def test_r23_a_transfer_may_not_break_the_r12_bout_limit():
    """R23: ... and R12 still holds after the transfer.

    With four suits a transfer never reaches the limit in real play (one rank has only
    four cards), so this position is artificial: five uncovered cards on the table in
    the first bout (limit 5).
    """
    hands = [["QD", "KD"], ["7D", "6S", "6D", "6C", "6H", "AD"], ["KS", "AS", "QC", "KC", "AC", "QH"]]
    pairs = [("7S", None), ("8S", None), ("9S", None), ("10S", None), ("JS", None)]
    first = Game.from_layout(PEREVODNOY, hands=hands, stock=["8C", "AH"], attacker=0, first_bout=True, table=pairs)
    refused(first, 1, "transfer 7D", "R12")
    later = Game.from_layout(PEREVODNOY, hands=hands, stock=["8C", "AH"], attacker=0, first_bout=False, table=pairs)
    assert "transfer 7D" in legal(later, 1)  # six attack cards are allowed after the first bout


# ------------------------------------------------------------------ R24


def test_r24_the_new_defender_may_transfer_again():
    """R24: the new defender may transfer again under the same rules -- here round the
    table back to the opener."""
    game = Game.from_layout(
        PEREVODNOY,
        hands=[["7S", "QD", "KD", "AD", "6D"], ["7D", "9C", "10C"], ["7C", "JS", "QS", "KS"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (1, "transfer 7D"))
    assert "transfer 7C" in legal(game, 2)
    events = play(game, (2, "transfer 7C"))
    assert events[0]["defender"] == 0
    assert (game.attacker, game.defender) == (0, 0)
    assert table(game) == [("7S", None), ("7D", None), ("7C", None)]
    assert game.to_move() == [0]
    events = play(game, (0, "take"), (1, "pass"), (2, "pass"))
    assert of_type(events, "bout_end")[0]["defender"] == 0
    assert next_bout(events) == (1, 2)


def test_r24_two_players_transfer_back_and_forth():
    """R24: with two players the attack goes back to the opener, who may transfer it
    back again while R23 allows."""
    game = Game.from_layout(
        Rules(variant="perevodnoy"),
        hands=[["7S", "7C", "QD", "KD"], ["7D", "7H", "9C", "10C"]],
        stock=["6C", "AS"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (1, "transfer 7D"))
    assert game.defender == 0
    play(game, (0, "transfer 7C"))
    assert game.defender == 1
    assert table(game) == [("7S", None), ("7D", None), ("7C", None)]
    # a fourth 7 would need 4 cards in seat 0's hand; he holds 2
    refused(game, 1, "transfer 7H", "R23")


# ------------------------------------------------------------------ R25


def test_r25_a_trump_cannot_be_shown_instead_of_played():
    """R25: a trump cannot be shown instead of played to transfer: the card is always
    put on the table (house rules: T5 off)."""
    game = Game.from_layout(
        Rules(variant="perevodnoy"),
        hands=[["7S", "QD", "KD"], ["7H", "9C", "8D"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    assert game.rules.trump_show_transfer is False
    play(game, (0, "attack 7S"))
    assert transfers(game, 1) == {"transfer 7H"}
    refused(game, 1, "show 7H", "R25")
    play(game, (1, "transfer 7H"))
    assert table(game) == [("7S", None), ("7H", None)]
    assert "7H" not in game.hand(1)


# ------------------------------------------------------------------ R26


def r26_game():
    return Game.from_layout(
        PEREVODNOY,
        hands=[
            ["7S", "QD", "KD", "AD", "6C", "8C"],
            ["7D", "9C", "10C", "JC", "QC", "KC"],
            ["8S", "8D", "9H", "10H", "JH", "QH"],
        ],
        stock=["6H", "7H", "AS"],  # spades are trump
        attacker=0,
        first_bout=False,
    )


def test_r26_after_a_transfer_the_first_attacker_draws_first_and_the_last_defender_last():
    """R26: in R16 "the player who opened the bout" is the first attacker and "the
    defender" is the last defender; in R17 the last defender attacks next if he beat
    everything."""
    game = r26_game()
    events = play(
        game,
        (0, "attack 7S"),
        (1, "transfer 7D"),
        (2, "defend 7S with 8S"),
        (2, "defend 7D with 8D"),
        (0, "pass"),
        (1, "pass"),
    )
    assert draws(events) == [(0, ["6H"]), (1, ["7H"]), (2, ["AS"])]
    assert next_bout(events) == (2, 0)


def test_r26_after_a_transfer_the_last_defender_who_took_loses_his_turn():
    """R26 with R17: the last defender took, so the next player after him attacks."""
    game = r26_game()
    events = play(game, (0, "attack 7S"), (1, "transfer 7D"), (2, "take"), (0, "pass"), (1, "pass"))
    assert draws(events) == [(0, ["6H"]), (1, ["7H"])]  # 2 holds 8: draws nothing
    assert next_bout(events) == (0, 1)


def test_r26_two_players_the_last_defender_is_the_opener_and_still_draws_last():
    """R26: the last defender draws last even when he is also the player who opened the
    bout (two players, one transfer): the order starts from the next player after him."""
    game = Game.from_layout(
        Rules(variant="perevodnoy"),
        hands=[["7S", "8S", "QD", "KD", "6C", "8C"], ["7D", "9C", "10C", "JC", "QC", "KC"]],
        stock=["6H", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (1, "transfer 7D"))
    assert (game.attacker, game.defender) == (0, 0)
    events = play(game, (0, "defend 7S with 8S"), (0, "defend 7D with QD"))
    assert game.to_move() == [1]
    events = play(game, (1, "pass"))
    assert draws(events) == [(1, ["6H"]), (0, ["AH"])]
    assert next_bout(events) == (0, 1)


def test_r26_three_players_transfer_round_to_the_opener_who_draws_last():
    """R26: the attack went round the table back to the opener; as last defender he draws
    last, the order starting from the next player after him."""
    game = Game.from_layout(
        PEREVODNOY,
        hands=[
            ["7S", "8S", "9D", "10C", "QD", "KD"],
            ["7D", "9C", "JC", "QC", "KC", "AC"],
            ["7C", "JS", "QS", "KS", "AS", "6D"],
        ],
        stock=["6C", "8C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (1, "transfer 7D"), (2, "transfer 7C"))
    assert (game.attacker, game.defender) == (0, 0)
    play(game, (0, "defend 7S with 8S"), (0, "defend 7D with 9D"), (0, "defend 7C with 10C"))
    assert game.to_move() == [1, 2]
    events = play(game, (1, "pass"), (2, "pass"))
    assert draws(events) == [(1, ["6C"]), (2, ["8C"]), (0, ["AH"])]
    assert next_bout(events) == (0, 1)


# ------------------------------------------------------------------- T5

SHOW = Rules(variant="perevodnoy", players=3, trump_show_transfer=True)
SHOW2 = Rules(variant="perevodnoy", trump_show_transfer=True)


def test_t5_only_in_perevodnoy():
    """T5 is a perevodnoy option."""
    with pytest.raises(ValueError, match="perevodnoy"):
        Rules(variant="podkidnoy", trump_show_transfer=True)


def test_t5_showing_a_trump_transfers_and_the_card_stays_in_hand_publicly_known():
    """T5: transfer by showing a trump of the attack rank without playing it."""
    game = Game.from_layout(
        SHOW,
        hands=[["7S", "QD", "KD"], ["7H", "9C", "8S"], ["KS", "AS", "8C"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"))
    assert transfers(game, 1) == {"show 7H", "transfer 7H"}
    events = play(game, (1, "show 7H"))
    assert events == [{"type": "show", "seat": 1, "card": "7H", "defender": 2, "visible_to": None}]
    assert game.defender == 2
    assert table(game) == [("7S", None)]  # nothing added
    assert "7H" in game.hand(1)
    for viewer in (None, 0, 1, 2):
        assert "7H" in game.view(viewer)["seats"][1]["known"]
    assert game.to_move() == [2]


def test_t5_each_card_is_shown_once_per_bout():
    """T5: a shown trump cannot be shown again in the same bout (it may still be played)."""
    game = Game.from_layout(
        SHOW2,
        hands=[["7S", "7D", "QD", "KD", "AD"], ["7H", "9C", "8S", "10C"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (1, "show 7H"))
    assert game.defender == 0
    play(game, (0, "transfer 7D"))
    assert game.defender == 1
    refused(game, 1, "show 7H", "shown")
    assert "transfer 7H" in legal(game, 1)


def test_t5_only_a_trump_can_be_shown():
    """T5: the shown card is a trump of the attack rank."""
    game = Game.from_layout(
        SHOW2, hands=[["7S", "QD", "KD"], ["7D", "9C"]], stock=["6C", "AH"], attacker=0, first_bout=False
    )
    play(game, (0, "attack 7S"))
    assert transfers(game, 1) == {"transfer 7D"}
    refused(game, 1, "show 7D", "trump")


def test_t5_a_show_needs_a_receiver_holding_enough_cards():
    """T5 with R23: the new defender must hold as many cards as the attack cards."""
    game = Game.from_layout(
        SHOW,
        hands=[["7S", "7C", "QD"], ["7H", "8S", "9S"], ["KS"]],
        stock=["6C", "AH"],
        attacker=0,
        first_bout=False,
    )
    play(game, (0, "attack 7S"), (0, "attack 7C"))
    refused(game, 1, "show 7H", "R23")
