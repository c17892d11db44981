"""The rule book's machinery: actions, refusals, events and views
(docs/engine.md), checked on hand-built positions and seeded playouts."""

import json
import random
import re

import pytest

from games.engine import Action, Game, IllegalAction, Rules, event_for, parse_action
from games.engine.cards import deck
from tests.engine.rulebook import legal, play

CARD = r"(?:[2-9]|10|J|Q|K|A)[SHDC]"
ACTION_TEXT = re.compile(rf"^(?:(?:attack|transfer|show|swap) {CARD}|defend {CARD} with {CARD}|take|pass)$")

# --------------------------------------------------------------- helpers


def positions(rules, seeds, steps=60):
    """Positions met in seeded random playouts (every legal move of every seat counts)."""
    for seed in seeds:
        game = Game.new(rules, seed=seed, dealer=seed % rules.players)
        rng = random.Random(seed)
        for _ in range(steps):
            if game.is_over:
                break
            yield game
            moves = [(s, a) for s in range(rules.players) for a in game.legal_actions(s)]
            seat, action = rng.choice(moves)
            game.act(seat, action)
        yield game


def action_universe(game):
    """Every action text that could ever be typed at this table (and a few wrong seats)."""
    cards = deck(game.rules.deck)
    texts = ["take", "pass"]
    for kind in ("attack", "transfer", "show", "swap"):
        texts.extend(f"{kind} {c}" for c in cards)
    targets = [c for pair in game.table for c in pair if c] + ["AS", "6H"]
    texts.extend(f"defend {t} with {c}" for t in targets for c in cards)
    return texts


RULE_SETS = [
    Rules(players=3),
    Rules(variant="perevodnoy", players=2, trump_show_transfer=True, trump_six_swap=True),
    Rules(variant="perevodnoy", players=4, partners=True, throw_in="neighbours"),
    Rules(players=6, partners=True, deck=52, first_bout_limit=6),
]
IDS = ["podkidnoy-3", "perevodnoy-2-T5-T6", "perevodnoy-pairs-T3", "teams-52"]


# ------------------------------------------------------- IllegalAction


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_every_illegal_action_raises_a_reason_and_changes_nothing(rules):
    """Contract: `act` raises IllegalAction(reason) for anything the rules refuse, and the
    state is unchanged; `legal_actions` lists exactly what `act` accepts."""
    for game in positions(rules, seeds=range(3), steps=25):
        for seat in range(rules.players):
            allowed = legal(game, seat)
            before = game.to_json()
            for text in action_universe(game):
                if text in allowed:
                    game.copy().act(seat, text)  # accepted
                    continue
                with pytest.raises(IllegalAction) as info:
                    game.act(seat, text)
                assert isinstance(info.value.reason, str) and info.value.reason.strip()
                assert str(info.value) == info.value.reason
            assert game.to_json() == before


@pytest.mark.parametrize("seat", [-1, 3, 99, True, None, "0", 1.0])
def test_a_seat_that_is_not_at_the_table_is_refused(seat):
    """Contract: a seat that does not exist is refused with a reason, not a crash."""
    game = Game.from_layout(Rules(players=3), hands=[["7S"], ["8S"], ["9S"]], stock=["6C", "AH"], attacker=0)
    before = game.to_json()
    with pytest.raises(IllegalAction) as info:
        game.act(seat, "attack 7S")
    assert info.value.reason
    assert game.to_json() == before
    assert game.legal_actions(seat) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "attack",
        "attack 6",
        "attack 6X",
        "attack 11S",
        "attack 6S 7S",
        "attack 6s6s",
        "defend 6S 7S",
        "defend 6S with",
        "defend with 7S",
        "defend 6S by 7S",
        "take 6S",
        "pass now",
        "hit 6S",
        "ATTACK",
        "transfer",
        "show",
        "swap",
        "beru",
        "bito",
        None,
        42,
        6.5,
        b"attack 7S",
        ["attack", "7S"],
        {"attack": "7S"},
    ],
)
def test_malformed_actions_raise_illegal_action(text):
    """Contract: actions have exactly the five text forms (plus show/swap); anything else
    is refused with a reason and changes nothing."""
    game = Game.from_layout(Rules(), hands=[["7S", "QD"], ["8S", "9D"]], stock=["6C", "AH"], attacker=0)
    before = game.to_json()
    with pytest.raises(IllegalAction) as info:
        game.act(0, text)
    assert info.value.reason
    assert game.to_json() == before
    with pytest.raises(IllegalAction):
        parse_action(text)


def test_a_well_formed_action_for_a_card_not_held_is_refused():
    """Contract: a card you do not hold cannot be played."""
    game = Game.from_layout(Rules(), hands=[["7S", "QD"], ["8S", "9D"]], stock=["6C", "AH"], attacker=0)
    before = game.to_json()
    with pytest.raises(IllegalAction, match="do not hold"):
        game.act(0, "attack 8S")
    assert game.to_json() == before


# --------------------------------------------------------- action texts


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_str_of_an_action_round_trips_and_act_takes_either(rules):
    """Contract: `str(action)` gives the text back; `act` takes the object or its text
    with the same result."""
    seen = set()
    for game in positions(rules, seeds=range(3), steps=40):
        for seat in range(rules.players):
            for action in game.legal_actions(seat):
                assert isinstance(action, Action)
                text = str(action)
                assert ACTION_TEXT.match(text), text
                assert parse_action(text) == action and str(parse_action(text)) == text
                seen.add(text.split()[0])
                by_object, by_text = game.copy(), game.copy()
                assert by_object.act(seat, action) == by_text.act(seat, text)
                assert by_object.to_json() == by_text.to_json()
    assert {"attack", "defend", "take", "pass"} <= seen


def test_action_objects_carry_their_parts():
    """Contract: the five forms, and the parts a client needs."""
    defend = parse_action("defend 6S with 7S")
    assert (defend.kind, defend.target, defend.card) == ("defend", "6S", "7S")
    assert parse_action("attack 10H").card == "10H"
    assert parse_action("take").kind == "take" and parse_action("pass").kind == "pass"
    assert str(parse_action("transfer QD")) == "transfer QD"


# ---------------------------------------------------------------- events


def drawing_game():
    return Game.from_layout(
        Rules(players=3),
        hands=[["7S", "QD"], ["8S", "9D"], ["JS", "10D"]],
        stock=["6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "6D", "7D", "AH"],
        attacker=0,
        first_bout=False,
    )


def test_events_say_who_may_see_their_details():
    """Contract: an event says which seats may see its details; draws are private to the
    drawing seat and `event_for` strips the cards for everyone else."""
    game = drawing_game()
    events = play(game, (0, "attack 7S"), (1, "defend 7S with 8S"), (0, "pass"), (2, "pass"))
    assert [e["type"] for e in events] == [
        "attack",
        "defend",
        "pass",
        "pass",
        "bout_end",
        "draw",
        "draw",
        "draw",
        "bout_start",
    ]
    for event in events:
        assert "visible_to" in event
        json.dumps(event)
    draws = [e for e in events if e["type"] == "draw"]
    assert [e["seat"] for e in draws] == [0, 2, 1]
    for event in draws:
        seat = event["seat"]
        assert event["visible_to"] == [seat]
        assert event["count"] == len(event["cards"])
        assert set(event["cards"]) <= set(game.hand(seat))
        assert event_for(event, seat) == event
        for other in [None] + [s for s in range(3) if s != seat]:
            redacted = event_for(event, other)
            assert "cards" not in redacted
            assert redacted["seat"] == seat and redacted["count"] == event["count"]
        assert "cards" in event  # event_for does not change the original
    for event in events:
        if event["type"] != "draw":
            assert event["visible_to"] is None
            assert all(event_for(event, s) == event for s in (None, 0, 1, 2))


def test_events_for_leaving_and_game_over_are_public():
    """Contract: player left and game over are public events."""
    game = Game.from_layout(Rules(players=3), hands=[["7S"], ["8S", "QC"], []], trump="H", attacker=0)
    events = play(game, (0, "attack 7S"), (1, "defend 7S with 8S"))
    assert [e["type"] for e in events] == ["attack", "left", "defend", "bout_end", "game_over"]
    assert all(e["visible_to"] is None for e in events)


# ----------------------------------------------------------------- views

CARD_IN_TEXT = re.compile(r"(?<![0-9A-Z])(?:[2-9]|10|J|Q|K|A)[SHDC](?![A-Z0-9])")


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_a_view_shows_a_seat_its_own_hand_and_public_cards_only(rules):
    """Contract: `view(seat)` is everything that seat may know and nothing else."""
    for game in positions(rules, seeds=range(3), steps=40):
        public = {c for pair in game.table for c in pair if c}
        public |= set(json.loads(game.to_json())["discard"])  # every one was played face up
        view = game.view(None)
        public |= {c for s in view["seats"] for c in s["known"]}
        if view["trump_card"]:
            public.add(view["trump_card"])
        if view["lowest_trump"]:  # announced at the start (R6)
            public.add(view["lowest_trump"]["card"])
        for seat in [None] + list(range(rules.players)):
            view = game.view(seat)
            text = json.dumps(view)
            own = set(game.hand(seat)) if seat is not None else set()
            assert set(CARD_IN_TEXT.findall(text)) <= own | public
            if seat is None:
                assert view["hand"] is None and view["legal_actions"] == []
            else:
                assert sorted(view["hand"]) == sorted(game.hand(seat))
                assert set(view["legal_actions"]) == legal(game, seat)
            assert [s["cards"] for s in view["seats"]] == [len(game.hand(s)) for s in range(rules.players)]


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_json_round_trip_mid_game(rules):
    """Contract: `to_json` / `Game.from_json` is an exact round trip, mid-game included."""
    for game in positions(rules, seeds=range(2), steps=40):
        again = Game.from_json(game.to_json())
        assert again.to_json() == game.to_json()
        assert all(legal(again, s) == legal(game, s) for s in range(rules.players))


def test_contract_table_is_pairs_of_attack_and_defence_in_the_order_played():
    """docs/engine.md: `game.table` is a list of (attack_card, defence_card_or_None)."""
    game = Game.from_layout(
        Rules(players=2),
        hands=[["6S", "7S", "8H", "QD", "KC", "AS"], ["6H", "9S", "10S", "JD", "JC", "7C"]],
        stock=["8S", "9H", "10C"],
        attacker=0,
    )
    game.act(0, "attack 7S")
    game.act(1, "defend 7S with 9S")
    assert game.table[0] == ("7S", "9S")
    assert all(isinstance(pair, tuple) and len(pair) == 2 for pair in game.table)
    game.table.clear()  # a copy: the position is not changed through it
    assert game.table[0] == ("7S", "9S")
