"""The rule book, part 1: players, deck and deal (docs/rules.md R1-R6, options T1, T4).

Each test is one rule, on a hand-built position (`Game.from_layout`) or, where
the rule is about dealing, on seeded deals (`Game.new`).
"""

import pytest

from games.engine import Game, Rules
from tests.engine.rulebook import legal, play, refused

RANKS_36 = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
RANKS_52 = ["2", "3", "4", "5"] + RANKS_36
SUITS = ["S", "H", "D", "C"]


# --------------------------------------------------------------- helpers


def viewers(game):
    return [None] + list(range(game.rules.players))


def all_cards(game):
    return [c for s in range(game.rules.players) for c in game.hand(s)] + list(game.stock)


def suit(card):
    return card[-1]


def rank_index(card):
    return RANKS_52.index(card[:-1])


# ------------------------------------------------------------------- R1


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_r1_two_to_six_players_may_sit_down(players):
    """R1: 2 to 6 players."""
    game = Game.new(Rules(players=players), seed=players)
    assert len(game.view(None)["seats"]) == players


@pytest.mark.parametrize("players", [0, 1, 7, 8])
def test_r1_fewer_than_two_or_more_than_six_players_is_refused(players):
    """R1: 2 to 6 players -- anything else is not a table."""
    with pytest.raises(ValueError, match="2 to 6"):
        Rules(players=players)


def test_r1_house_deck_is_36_cards_six_to_ace():
    """R1: the deck is 36 cards, 6 to A in four suits."""
    game = Game.new(Rules(players=3), seed=11)
    cards = all_cards(game)
    assert len(cards) == len(set(cards)) == 36
    assert set(cards) == {r + s for r in RANKS_36 for s in SUITS}
    assert game.rules.deck == 36


@pytest.mark.parametrize("low, high", list(zip(RANKS_36, RANKS_36[1:])))
def test_r1_rank_order_six_lowest_ace_highest(low, high):
    """R1: rank order 6 < 7 < 8 < 9 < 10 < J < Q < K < A (seen through R9 beating)."""
    game = Game.from_layout(Rules(), hands=[[low + "S", "AD"], [high + "S", "KD"]], trump="H", attacker=0)
    up = game.copy()
    play(up, (0, f"attack {low}S"))
    assert f"defend {low}S with {high}S" in legal(up, 1)
    down = Game.from_layout(Rules(), hands=[[high + "S", "AD"], [low + "S", "KD"]], trump="H", attacker=0)
    play(down, (0, f"attack {high}S"))
    refused(down, 1, f"defend {high}S with {low}S", "R9")


# ------------------------------------------------------------------- R2


def test_r2_four_players_may_play_in_pairs_sitting_opposite():
    """R2: with 4 players, partners sit opposite: seats 0+2 against 1+3."""
    game = Game.new(Rules(players=4, partners=True), seed=5)
    teams = [s["team"] for s in game.view(None)["seats"]]
    assert teams[0] == teams[2]
    assert teams[1] == teams[3]
    assert teams[0] != teams[1]


def test_r2_without_partners_everyone_plays_for_himself():
    """R2: pairs are a choice; by default each of the 4 seats is its own side."""
    game = Game.new(Rules(players=4), seed=5)
    teams = [s["team"] for s in game.view(None)["seats"]]
    assert len(set(teams)) == 4


# ------------------------------------------------------------------- R3


def test_r3_first_out_wins_last_holding_cards_is_durak():
    """R3: a game is one deal; the first out of cards wins, the last holding cards is the durak."""
    game = Game.from_layout(Rules(), hands=[["6S"], ["7S", "8H"]], trump="H", attacker=0)
    play(game, (0, "attack 6S"), (1, "defend 6S with 7S"))
    assert game.is_over
    assert game.places == {0: 1, 1: 2}
    assert game.durak == 1
    assert game.losers == [1]


# ------------------------------------------------------------------- R4


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_r4_six_cards_each_next_card_face_up_under_the_stock(players):
    """R4: each player is dealt 6 cards; the next card is turned face up, names trump
    and lies under the stock (it is drawn last)."""
    for seed in range(5):
        game = Game.new(Rules(players=players), seed=seed)
        assert [len(game.hand(s)) for s in range(players)] == [6] * players
        assert game.stock_size == 36 - 6 * players
        view = game.view(None)
        trump_card = view["trump_card"]
        assert trump_card not in all_cards(game)[: 6 * players]
        assert game.trump == view["trump"] == suit(trump_card)
        assert view["trump_card_in_stock"] is True
        assert game.stock[-1] == trump_card  # under the stock: the last card drawn


def test_r4_face_up_trump_is_the_last_card_drawn_and_everyone_saw_it():
    """R4: the face-up card is put under the stock and is the last card drawn."""
    game = Game.from_layout(
        Rules(),
        hands=[["7S", "9D", "JD", "QD", "KD", "AD"], ["8S", "9C", "JC", "QC", "KC", "AC"]],
        stock=["10C", "QH"],
        attacker=0,
        first_bout=False,
    )
    events = play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (0, "pass"))
    draws = [(e["seat"], e["cards"]) for e in events if e["type"] == "draw"]
    assert draws == [(0, ["10C"]), (1, ["QH"])]
    assert game.stock_size == 0
    for viewer in viewers(game):
        view = game.view(viewer)
        assert view["trump_card_in_stock"] is False
        assert "QH" in view["seats"][1]["known"]  # the face-up card was seen by all
        assert "10C" not in view["seats"][0]["known"]  # an ordinary draw stays private


# ------------------------------------------------------------------- R5


@pytest.mark.parametrize(
    "players, deck, partners",
    [(6, 36, False), (6, 36, True), (4, 24, False), (4, 24, True)],
)
@pytest.mark.parametrize("dealer", [0, 1, 3])
def test_r5_whole_deck_deal_trump_is_last_card_dealt_and_public(players, deck, partners, dealer):
    """R5: if the deal uses the whole deck (6 x 36, or 4 x 24), trump is the suit of the
    last card dealt; it stays in that player's hand and everyone sees it."""
    rules = Rules(players=players, deck=deck, partners=partners)
    for seed in range(4):
        game = Game.new(rules, seed=seed, dealer=dealer)
        assert game.stock_size == 0
        assert [len(game.hand(s)) for s in range(players)] == [6] * players
        trump_card = game.view(None)["trump_card"]
        # dealing starts left of the dealer, so the last card dealt is the dealer's
        assert trump_card in game.hand(dealer)
        assert game.trump == suit(trump_card)
        for viewer in viewers(game):
            view = game.view(viewer)
            assert trump_card in view["seats"][dealer]["known"]
            assert view["trump_card_in_stock"] is False
            assert view["trump_card"] == trump_card


def test_r5_last_dealt_card_is_public_until_played():
    """R5: the card everyone saw stays public while in the hand, then goes to the table."""
    for seed in range(200):
        game = Game.new(Rules(players=6), seed=seed, dealer=0)
        if game.attacker == 0:
            break
    else:  # pragma: no cover
        pytest.fail("no seed with the dealer attacking first")
    trump_card = game.view(None)["trump_card"]
    assert trump_card in game.view(3)["seats"][0]["known"]
    play(game, (0, f"attack {trump_card}"))
    assert [tuple(pair) for pair in game.table] == [(trump_card, None)]
    for viewer in viewers(game):
        assert trump_card not in game.view(viewer)["seats"][0]["known"]


# ------------------------------------------------------------------- R6


def test_r6_lowest_trump_attacks_first_and_is_announced():
    """R6: the first attacker is the player holding the lowest trump; the engine
    announces that card publicly."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["9H", "7S", "QC"], ["8S", "KH", "10D"], ["7H", "6S", "JC"]],
        stock=["9C", "AH"],  # 6H is in the discard: 7H is the lowest trump held
    )
    assert game.trump == "H"
    assert game.attacker == 2
    assert game.defender == 0
    for viewer in viewers(game):
        view = game.view(viewer)
        assert view["lowest_trump"] == {"seat": 2, "card": "7H"}
        assert view["seats"][2]["known"] == ["7H"]
        assert view["seats"][0]["known"] == []  # 9H is not announced
    assert legal(game, 2) == {"attack 7H", "attack 6S", "attack JC"}


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_r6_seeded_deals_start_with_the_lowest_trump(players):
    """R6: over many deals the first attacker always holds the lowest trump in play."""
    for seed in range(30):
        game = Game.new(Rules(players=players), seed=seed, dealer=seed % players)
        trumps = [(rank_index(c), s) for s in range(players) for c in game.hand(s) if suit(c) == game.trump]
        if not trumps:
            assert game.attacker == (game.dealer + 1) % players
            continue
        low_rank, holder = min(trumps)
        assert game.attacker == holder
        card = RANKS_52[low_rank] + game.trump
        assert game.view(None)["lowest_trump"] == {"seat": holder, "card": card}


@pytest.mark.parametrize("dealer, first", [(0, 1), (1, 2), (2, 0)])
def test_r6_nobody_holds_a_trump_dealer_plus_one_attacks(dealer, first):
    """R6: if nobody holds a trump, the player to the dealer's left (dealer + 1) attacks."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["9S", "7S"], ["8S", "10D"], ["7C", "6S"]],
        stock=["9C", "AH"],
        dealer=dealer,
    )
    assert game.attacker == first
    assert game.defender == (first + 1) % 3
    assert game.view(None)["lowest_trump"] is None
    assert all(s["known"] == [] for s in game.view(None)["seats"])


def test_r6_nobody_holds_a_trump_dealer_plus_one_skips_a_seat_already_out():
    """R6 with R18: "the next player" is the next seat still in the game."""
    game = Game.from_layout(
        Rules(players=3),
        hands=[["9S", "7S"], [], ["7C", "6S"]],
        trump="H",
        dealer=0,
    )
    assert game.places == {1: 1}
    assert game.attacker == 2


# ------------------------------------------------------------------- T1


@pytest.mark.parametrize("size, lowest", [(24, "9"), (36, "6"), (52, "2")])
def test_t1_deck_sizes_and_their_rank_ranges(size, lowest):
    """T1: the deck may be 24 cards (9 to A) or 52 cards (2 to A); 36 (6 to A) is the house deck."""
    ranks = RANKS_52[RANKS_52.index(lowest) :]
    game = Game.new(Rules(players=2, deck=size), seed=7)
    cards = all_cards(game)
    assert len(cards) == len(set(cards)) == size
    assert set(cards) == {r + s for r in ranks for s in SUITS}


@pytest.mark.parametrize(
    "players, deck",
    [(2, 24), (4, 24), (2, 36), (6, 36), (2, 52), (6, 52)],
)
def test_t1_allowed_player_counts_per_deck(players, deck):
    """T1: 24 cards seat at most 4 players; 36 and 52 cards seat 2 to 6."""
    game = Game.new(Rules(players=players, deck=deck), seed=1)
    assert game.stock_size == deck - 6 * players


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(players=5, deck=24), ["24", "5"]),
        (dict(players=6, deck=24), ["24", "6"]),
        (dict(players=7, deck=52), ["7"]),
        (dict(players=2, deck=32), ["32"]),
        (dict(players=2, deck=40), ["40"]),
        (dict(players=3, partners=True), ["3", "4", "6"]),
        (dict(players=2, partners=True), ["2"]),
        (dict(players=5, partners=True), ["5"]),
        (dict(players=2, first_bout_limit=4), ["4"]),
        (dict(players=2, throw_in="left"), ["left"]),
        (dict(players=2, variant="bridge"), ["bridge"]),
        (dict(players=2, trump_show_transfer=True), ["perevodnoy"]),
        (dict(players=2, deck=24, trump_six_swap=True), ["six"]),
    ],
)
def test_t1_impossible_tables_raise_value_error_with_a_readable_message(kwargs, words):
    """T1-T6: an impossible combination raises ValueError saying what is wrong."""
    with pytest.raises(ValueError) as info:
        Rules(**kwargs)
    message = str(info.value)
    assert message[:1].isupper() and message.endswith(".")
    for word in words:
        assert word in message


def test_t1_52_card_deck_ranks_two_up():
    """T1: in the 52-card deck the 2 is the lowest card and 3 beats it."""
    rules = Rules(deck=52)
    game = Game.from_layout(rules, hands=[["2S", "5D"], ["3S", "4S", "2D"]], trump="H", attacker=0)
    play(game, (0, "attack 2S"))
    assert {a for a in legal(game, 1) if a.startswith("defend")} == {
        "defend 2S with 3S",
        "defend 2S with 4S",
    }


def test_t1_layout_cards_must_belong_to_the_deck():
    """T1: a 24-card deck has no 6s, a 36-card deck no 2s."""
    with pytest.raises(ValueError, match="24-card deck"):
        Game.from_layout(Rules(deck=24), hands=[["6S"], ["AS"]], trump="H")
    with pytest.raises(ValueError, match="36-card deck"):
        Game.from_layout(Rules(), hands=[["2S"], ["AS"]], trump="H")


def test_t1_24_card_deck_with_four_players_deals_everything():
    """T1 with R5: 4 players x 6 = 24, so the whole 24-card deck is dealt."""
    game = Game.new(Rules(players=4, deck=24), seed=3)
    assert game.stock_size == 0
    assert {c[:-1] for c in all_cards(game)} == {"9", "10", "J", "Q", "K", "A"}


# ------------------------------------------------------------ T4 (teams)


def test_t4_six_players_play_as_two_teams_of_three():
    """T4: team play for 6: seats 0+2+4 against 1+3+5."""
    game = Game.new(Rules(players=6, partners=True), seed=9)
    teams = [s["team"] for s in game.view(None)["seats"]]
    assert teams[0] == teams[2] == teams[4]
    assert teams[1] == teams[3] == teams[5]
    assert teams[0] != teams[1]
