#!/usr/bin/env python3
"""Re-deal a Durak game from its revealed seed and check the seed against the hash shown at the start.

Standard library only; the algorithm is written out in docs/fairness.md (deal method 2).

    python3 fairness_verify.py --seed SEED --seed-hash HASH --players 4 [--deck 36] [--dealer 0]
    python3 fairness_verify.py --seed SEED --seed-hash HASH --rules '{"players": 4, "deck": 36}' --dealer 2

It prints the deal as JSON (hands in the order the cards were dealt, the stock
from the top with the face-up trump card last, the trump card and suit) and
exits with status 0 when SHA-256 of the seed is the hash, 1 when it is not.
With --expect FILE (a JSON object with "hands", "stock" and "trump_card", as
printed; "-" reads standard input) it also compares the deal with it, card for
card, and exits with 1 on any difference.
"""

import argparse
import hashlib
import hmac
import json
import sys

SUITS = ["S", "H", "D", "C"]
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
LOWEST_RANK = {24: "9", 36: "6", 52: "2"}
HAND_SIZE = 6


def seed_hash(seed: str) -> str:
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def deck_before_shuffling(size: int) -> list:
    """Suit by suit (spades, hearts, diamonds, clubs), each from its lowest rank up to the ace."""
    ranks = RANKS[RANKS.index(LOWEST_RANK[size]) :]
    return [rank + suit for suit in SUITS for rank in ranks]


def random_bytes(seed: str):
    """Block k is HMAC-SHA256 with the seed's UTF-8 bytes as key and k as 8 bytes, big-endian."""
    key = seed.encode("utf-8")
    counter = 0
    while True:
        yield from hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1


def shuffled(cards: list, seed: str) -> list:
    """Fisher-Yates: for i from the last index down to 1, swap card i with card j, 0 <= j <= i."""
    cards = list(cards)
    stream = random_bytes(seed)
    for i in range(len(cards) - 1, 0, -1):
        choices = i + 1
        while True:  # rejection sampling: only bytes below a multiple of `choices` count
            byte = next(stream)
            if byte < 256 - 256 % choices:
                break
        j = byte % choices
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deal(seed: str, players: int, deck: int, dealer: int) -> dict:
    cards = shuffled(deck_before_shuffling(deck), seed)
    hands = [[] for _ in range(players)]
    for i in range(players * HAND_SIZE):  # one card at a time, starting left of the dealer
        hands[(dealer + 1 + i) % players].append(cards[i])
    rest = cards[players * HAND_SIZE :]
    if rest:  # the next card is turned face up and put under the stock
        trump_card, stock = rest[0], rest[1:] + rest[:1]
    else:  # the whole deck was dealt: the last card dealt names trump
        trump_card, stock = cards[-1], []
    return {"hands": hands, "stock": stock, "trump_card": trump_card, "trump": trump_card[-1]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Re-deal a Durak game (deal method 2) and check its seed hash.")
    parser.add_argument("--seed", required=True, help="the seed revealed at the end of the game")
    parser.add_argument("--seed-hash", required=True, help="the SHA-256 shown when the game started")
    parser.add_argument("--rules", help='the game\'s rules as JSON, e.g. {"players": 4, "deck": 36}')
    parser.add_argument("--players", type=int, help="2 to 6 (overrides --rules)")
    parser.add_argument("--deck", type=int, choices=sorted(LOWEST_RANK), help="24, 36 or 52 (default 36)")
    parser.add_argument("--dealer", type=int, default=0, help="the dealer's seat, 0 to players-1 (default 0)")
    parser.add_argument("--expect", help="a JSON file with the deal to compare with ('-': standard input)")
    args = parser.parse_args(argv)
    rules = json.loads(args.rules) if args.rules else {}
    players = args.players or rules.get("players", 2)
    deck = args.deck or rules.get("deck", 36)
    if deck not in LOWEST_RANK or not 2 <= players <= 6 or players * HAND_SIZE > deck:
        parser.error(f"{players} players cannot be dealt from a {deck}-card deck")
    if not 0 <= args.dealer < players:
        parser.error(f"the dealer is a seat from 0 to {players - 1}")
    try:
        hash_ok = seed_hash(args.seed) == args.seed_hash.strip().lower()
    except UnicodeEncodeError:
        hash_ok = False  # the site's seeds are ASCII
    result = deal(args.seed, players, deck, args.dealer)
    result["seed_hash_ok"] = hash_ok
    problems = [] if hash_ok else ["SHA-256 of the seed is not the hash shown at the start"]
    if args.expect:
        with open(args.expect) if args.expect != "-" else sys.stdin as source:
            expected = json.load(source)
        for key in ("hands", "stock", "trump_card"):
            if key in expected and expected[key] != result[key]:
                problems.append(f"{key} differ: dealt {result[key]}, expected {expected[key]}")
    result["problems"] = problems
    print(json.dumps(result))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
