"""The shuffle by deal method (docs/engine.md, docs/fairness.md) feeding the deal of R4-R6."""

import hashlib
import hmac
import itertools
import random
from collections import Counter

import pytest

from games.engine import DEAL_METHOD, DEAL_METHODS, Game, Rules, deck
from games.engine.deal import byte_stream, shuffle

SEED = hashlib.sha256(b"deal methods").hexdigest()


def test_new_games_are_dealt_with_method_2():
    assert DEAL_METHOD == 2 and DEAL_METHODS == (1, 2)
    rules = Rules(players=4)
    assert Game.new(rules, seed=SEED, dealer=1) == Game.new(rules, seed=SEED, dealer=1, deal_method=2)


def test_method_1_is_pythons_random_shuffle_as_games_were_dealt_before():
    """Old games keep verifying: method 1 is random.Random(seed).shuffle, then R4's deal."""
    rules = Rules(players=3)
    cards = deck(36)
    random.Random(SEED).shuffle(cards)
    game = Game.new(rules, seed=SEED, dealer=2, deal_method=1)
    assert [game.hand(s) for s in range(3)] == [cards[0:18:3], cards[1:18:3], cards[2:18:3]]  # seat 0 is left of 2
    assert game.trump_card == cards[18] and game.stock_size == 36 - 18


def test_the_two_methods_deal_differently():
    rules = Rules(players=2)
    assert Game.new(rules, seed=SEED, deal_method=1) != Game.new(rules, seed=SEED, deal_method=2)


def test_method_2_byte_stream_is_hmac_sha256_of_a_big_endian_counter():
    stream = byte_stream(b"durak")
    first = bytes(itertools.islice(stream, 64))
    assert first[:32] == hmac.digest(b"durak", bytes(8), "sha256")
    assert first[32:] == hmac.digest(b"durak", (1).to_bytes(8, "big"), "sha256")
    assert first[:4].hex() == "9f682806"


def test_method_2_text_and_whole_number_seeds():
    """A whole-number seed is its decimal digits; other seed types are refused."""
    rules = Rules(players=2)
    assert Game.new(rules, seed=2024) == Game.new(rules, seed="2024")
    for seed in (None, 1.5, b"2024", True):
        with pytest.raises(ValueError, match="seed"):
            Game.new(rules, seed=seed)


@pytest.mark.parametrize("method", [0, 3, "2", True, None])
def test_an_unknown_deal_method_is_refused(method):
    with pytest.raises(ValueError, match="deal method"):
        Game.new(Rules(), seed=SEED, deal_method=method)


def test_method_2_shuffles_every_deck_to_a_permutation():
    for size in (24, 36, 52):
        cards = deck(size)
        shuffle(cards, SEED, 2)
        assert sorted(cards) == sorted(deck(size)) and cards != deck(size)


def test_method_2_is_uniform_over_the_orders_of_a_small_deck():
    """Rejection sampling leaves no modulo bias: each of the 24 orders of 4 cards comes up
    about equally often over 24,000 seeds (a fixed set, so the test is deterministic)."""
    counts = Counter()
    for i in range(24_000):
        cards = ["a", "b", "c", "d"]
        shuffle(cards, f"seed {i}", 2)
        counts[tuple(cards)] += 1
    assert len(counts) == 24
    chi_square = sum((n - 1000) ** 2 / 1000 for n in counts.values())
    assert chi_square < 49.7, counts  # the 0.999 quantile for 23 degrees of freedom


def test_r5_a_whole_deck_deal_takes_trump_from_the_dealers_last_card():
    for rules in (Rules(players=6), Rules(players=4, deck=24)):
        game = Game.new(rules, seed=SEED, dealer=3)
        assert game.stock_size == 0
        assert game.trump_card == game.hand(3)[-1] and game.trump == game.trump_card[-1]
        assert game.trump_card in game.view(0)["seats"][3]["known"]
