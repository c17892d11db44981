"""The view's "declined" cards and how the search reads them.

A defender who takes leaves some attack cards unbeaten; everyone at the
table saw which. Until he draws again he is less likely to hold a card that
beats them (he may have taken on purpose, so not impossible). The view lists
them per seat (`seats[i]["declined"]`), the same for every seat and for
spectators, and the searching bot deals its guesses accordingly.
"""

import json
import random

import pytest

from games.bots import get_bot
from games.bots.arena import next_seat
from games.bots.search import DealSampler
from games.engine import Game, Rules, event_for

from .test_bots import position


def declined(game, seat=None):
    return [s["declined"] for s in game.view(seat)["seats"]]


# ------------------------------------------------------------- the rule


def test_a_taker_declines_the_cards_left_unbeaten_when_he_took():
    """B covered 7♥ but not 7♣, and took: 7♣ is declined; 9♣ thrown in after the take is not."""
    game = position(
        hands=[["9C", "6D"], ["8H", "KH", "6S", "9D", "JD", "AD", "10D"]],
        table=[["7H", "9H"], ["7C", None]],
        stock_size=10,
        trump_card="10S",
    )
    assert declined(game) == [[], []]
    game.act(1, "take")
    assert declined(game) == [[], ["7C"]]
    game.act(0, "attack 9C")
    game.act(0, "pass")
    # B holds eleven cards: he draws none, so what he declined still counts.
    assert len(game.hand(1)) == 11
    assert declined(game) == [[], ["7C"]]


def test_drawing_from_the_stock_clears_what_a_player_declined():
    game = position(
        hands=[["9C", "6D", "QS"], ["8H", "KH"]],
        table=[["7C", None]],
        stock_size=10,
        trump_card="10S",
    )
    game.act(1, "take")
    game.act(0, "pass")
    assert len(game.hand(1)) == 6  # three cards taken up, three drawn
    assert declined(game) == [[], []]


def test_the_declined_cards_survive_a_copy_and_the_json_round_trip():
    game = position(hands=[["9C", "6D"], ["8H", "KH", "6S", "9D", "JD", "AD", "10D"]], table=[["7C", None]])
    game.act(1, "take")
    assert declined(game.copy()) == declined(game) == [[], ["7C"]]
    assert declined(Game.from_json(game.to_json())) == [[], ["7C"]]
    state = json.loads(game.to_json())
    del state["declined"]  # a position saved before the field existed
    assert declined(Game.from_json(json.dumps(state))) == [[], []]


# ------------------------------------------------------------- public


def replay_declined(events, players):
    """What anyone watching the table (a spectator's redacted events) can tell."""
    table, found = [], [[] for _ in range(players)]
    for event in events:
        kind = event["type"]
        if kind in ("attack", "transfer"):
            table.append([event["card"], None])
        elif kind == "defend":
            next(p for p in table if p[0] == event["target"])[1] = event["card"]
        elif kind == "take":
            found[event["seat"]].extend(a for a, d in table if d is None)
        elif kind == "draw":
            found[event["seat"]] = []
        elif kind == "bout_end":
            table = []
    return found


@pytest.mark.parametrize(
    "variant, players, partners", [("podkidnoy", 2, False), ("perevodnoy", 3, False), ("perevodnoy", 4, True)]
)
def test_every_seat_and_every_spectator_sees_the_same_declined_cards_and_they_follow_from_public_events(
    variant, players, partners
):
    rules = Rules(variant=variant, players=players, partners=partners)
    takes = 0
    for g in range(4):
        game = Game.new(rules, seed=f"declined:{g}", dealer=g % players)
        bots = [get_bot("medium", seed=s) for s in range(players)]
        seen_by_spectator = []
        while not game.is_over:
            seat = next_seat(game)
            events = game.act(seat, bots[seat].choose(game.view(seat)))
            seen_by_spectator += [event_for(e, None) for e in events]
            takes += any(e["type"] == "take" for e in events)
            public = declined(game, None)
            assert all(declined(game, s) == public for s in range(players))
            assert public == replay_declined(seen_by_spectator, players)
    assert takes > 0


# ------------------------------------------------------------- sampling


def test_the_search_deals_beaters_of_a_declined_card_less_often_but_still_sometimes():
    """B took 10♥ unbeaten (trumps spades): his guessed hands hold far fewer higher hearts
    and somewhat fewer trumps (weaker evidence: trumps are often kept on purpose)."""
    game = position(
        hands=[["9C", "6D", "QS", "8D", "7C", "JC"], ["8H", "KC", "6S", "9D", "JD", "AD"]],
        table=[["10H", None]],
        stock_size=12,
        trump_card="10S",
    )
    game.act(1, "take")
    game.act(0, "pass")
    view = game.view(0)
    assert view["seats"][1]["declined"] == ["10H"]
    plain = {**view, "seats": [{**s, "declined": []} for s in view["seats"]]}
    hearts, trumps = {}, {}
    for name, seen in (("declined", view), ("plain", plain)):
        sampler = DealSampler(seen)
        rng = random.Random(3)
        hands = [sampler.sample(rng).hand(1) for _ in range(300)]
        hearts[name] = sum(c in ("JH", "QH", "KH", "AH") for h in hands for c in h)
        trumps[name] = sum(c[-1] == "S" for h in hands for c in h)
    assert 0 < hearts["declined"] < 0.6 * hearts["plain"]  # less likely, not impossible
    assert 0 < trumps["declined"] < trumps["plain"]


def test_known_cards_of_a_taker_are_never_reweighted():
    """The cards he took up are public and stay in his hand, whatever they beat."""
    game = position(
        hands=[["9C", "6D", "QS", "8D", "7C", "JC"], ["8H", "KC", "6S", "9D", "JD", "AD"]],
        table=[["10H", "JH"], ["10C", None]],
        stock_size=12,
        trump_card="10S",
    )
    game.act(1, "take")
    game.act(0, "pass")
    view = game.view(0)
    assert view["seats"][1]["declined"] == ["10C"]
    sampler = DealSampler(view)
    rng = random.Random(0)
    for _ in range(20):
        assert {"10H", "JH", "10C"} <= set(sampler.sample(rng).hand(1))
