"""Shuffling the deck from a seed (docs/fairness.md gives the exact algorithm).

Deal method 2 (the current one) is specified byte for byte, so anyone can
re-deal a game from its revealed seed with nothing but SHA-256: a
Fisher-Yates shuffle whose random indices come from the byte stream
HMAC-SHA256(key=seed, message=counter), with rejection sampling so every
index is exactly uniform. Deal method 1 is Python's own
`random.Random(seed).shuffle`, which Python does not promise to keep across
versions; it stays so that games dealt with it still verify.
"""

import hashlib
import hmac
import random

DEAL_METHOD = 2  # what new games are dealt with
DEAL_METHODS = (1, 2)


def seed_bytes(seed) -> bytes:
    """The seed as the HMAC key: a text's UTF-8 bytes (ASCII for the site's hex seeds), an int's decimal digits."""
    if isinstance(seed, bool) or not isinstance(seed, (str, int)):
        raise ValueError(f"Deal method 2 takes a text or whole-number seed, not {type(seed).__name__}.")
    return str(seed).encode("utf-8")


def byte_stream(key: bytes):
    """HMAC-SHA256(key, counter) for counter = 0, 1, 2, ... (8 bytes, big-endian), byte by byte."""
    counter = 0
    while True:
        yield from hmac.digest(key, counter.to_bytes(8, "big"), hashlib.sha256)
        counter += 1


def shuffle_v2(cards: list, seed) -> None:
    """Fisher-Yates from the last position down; index j in [0, i] drawn without modulo bias."""
    stream = byte_stream(seed_bytes(seed))
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        # The largest multiple of `bound` that fits in a byte: bytes at or above it are
        # thrown away, so each of the `bound` values is equally likely.
        limit = 256 - 256 % bound
        byte = next(stream)
        while byte >= limit:
            byte = next(stream)
        j = byte % bound
        cards[i], cards[j] = cards[j], cards[i]


def shuffle_v1(cards: list, seed) -> None:
    """The legacy deal: whatever this Python's random.Random(seed).shuffle does."""
    random.Random(seed).shuffle(cards)


SHUFFLES = {1: shuffle_v1, 2: shuffle_v2}


def shuffle(cards: list, seed, deal_method: int = DEAL_METHOD) -> None:
    """Shuffle `cards` in place the way `deal_method` says."""
    if isinstance(deal_method, bool) or deal_method not in SHUFFLES:
        raise ValueError(f"Unknown deal method {deal_method!r}: known methods are {', '.join(map(str, DEAL_METHODS))}.")
    SHUFFLES[deal_method](cards, seed)
