"""The searching bot (levels hard and expert) and item 5 of the levels: every
level plays only legal actions, sees only its seat's view, repeats itself
with a seed and keeps to its budget.

Playout budgets here are small (a few playouts a decision) so that whole
games stay cheap; time budgets are checked with a fake clock, never by
measuring time. Strength is measured by `manage.py arena` (docs/benchmarks.md).
"""

import inspect
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots import LEVELS, SearchBot, get_bot
from games.bots import search as search_module
from games.bots.arena import match, next_seat, outcome_for, play_game, seats_of_a
from games.bots.search import DealSampler
from games.engine import Game, Rules
from games.engine.cards import deck

from .test_bots import CONFIGS, hide_differently, position


def search_bot(seed=0, iterations=12, **kwargs):
    return SearchBot(seed=seed, iterations=iterations, seconds=None, **kwargs)


class FakeClock:
    """A clock that moves `step` seconds every time it is read."""

    def __init__(self, step):
        self.now = 1000.0
        self.step = step
        self.reads = 0

    def __call__(self):
        self.reads += 1
        self.now += self.step
        return self.now


def random_positions(rules, count, seed):
    """`count` positions met in games of club players, each with the seat awaited."""
    rng = random.Random(seed)
    found = []
    g = 0
    while len(found) < count:
        game = Game.new(rules, seed=f"{seed}:{g}", dealer=g % rules.players)
        bot = get_bot("medium", seed=g)
        while not game.is_over and len(found) < count:
            seat = next_seat(game)
            if len(game.legal_actions(seat)) > 1 and rng.random() < 0.15:
                found.append((game.copy(), seat))
            game.act(seat, bot.choose(game.view(seat)))
        g += 1
    return found


# ------------------------------------------------------------ legal play


def test_ten_thousand_decisions_of_the_quick_levels_are_all_legal():
    """Easy, medium and the legacy random bot, every variant and table option, mixed tables."""
    decisions = 0

    def check(game, seat, view, action):
        nonlocal decisions
        decisions += 1
        assert action in view["legal_actions"], (action, view)

    levels = ["easy", "medium", "random"]
    i = 0
    while decisions < 10_000:
        variant, players, partners, options = CONFIGS[i % len(CONFIGS)]
        rules = Rules(variant=variant, players=players, partners=partners, **options)
        bots = [get_bot(levels[(i + s) % 3], seed=f"{i}:{s}") for s in range(players)]
        game = play_game(rules, bots, seed=f"legal:{i}", dealer=i % players, check=check)
        assert game.is_over
        i += 1


@pytest.mark.parametrize(
    "variant,players,partners,options",
    CONFIGS,
    ids=lambda x: str(x) if not isinstance(x, dict) else ",".join(f"{k}={v}" for k, v in x.items()) or "house",
)
def test_the_searching_bot_plays_only_legal_actions_at_every_table(variant, players, partners, options):
    """Search bots in every other seat, club players in the rest, two games a table setting."""
    rules = Rules(variant=variant, players=players, partners=partners, **options)
    searched = 0

    def check(game, seat, view, action):
        nonlocal searched
        assert action in view["legal_actions"], (action, view)
        if isinstance(bots[seat], SearchBot):
            searched += bots[seat].last_stats["playouts"] > 0
            if view["table"] and action.startswith("attack"):
                # R2: a partner is never thrown in against.
                assert view["seats"][view["defender"]]["team"] != view["seats"][seat]["team"]

    for g in range(2):
        bots = [
            search_bot(seed=f"{g}:{s}", iterations=6) if s % 2 == g else get_bot("medium", seed=s)
            for s in range(players)
        ]
        game = play_game(rules, bots, seed=f"search-legal:{g}", dealer=g % players, check=check)
        assert game.is_over
    assert searched > 0


# ------------------------------------------------- blind to hidden cards


@pytest.mark.parametrize(
    "variant,players,partners",
    [("podkidnoy", 2, False), ("perevodnoy", 3, False), ("perevodnoy", 4, True), ("podkidnoy", 5, False)],
)
def test_search_decides_from_the_view_alone(variant, players, partners):
    """The same view built from a differently dealt hidden game gets the same choice."""
    rules = Rules(variant=variant, players=players, partners=partners)
    rng = random.Random(7)
    redealt = 0
    for game, seat in random_positions(rules, 12, seed=f"blind:{variant}:{players}"):
        other = hide_differently(game, seat, rng)
        view = game.view(seat)
        assert other.view(seat) == view
        redealt += other.to_json() != game.to_json()
        assert search_bot(seed=3).choose(view) == search_bot(seed=3).choose(other.view(seat))
    assert redealt >= 8  # (late positions may hide too few cards to deal them otherwise)


def test_sampled_deals_agree_with_the_view_and_vary_the_hidden_cards():
    rules = Rules(variant="perevodnoy", players=4, partners=True)
    for game, seat in random_positions(rules, 20, seed="sampler"):
        view = game.view(seat)
        sampler = DealSampler(view)
        assert sampler.consistent
        rng = random.Random(1)
        hidden = set()
        for _ in range(5):
            sample = sampler.sample(rng)
            seen = sample.view(seat)
            # Nothing the seat sees differs (its hand comes sorted, so its actions may be listed in another order).
            assert sorted(seen.pop("legal_actions")) == sorted(view["legal_actions"])
            assert seen == {k: v for k, v in view.items() if k != "legal_actions"}
            hidden.add(json.dumps([sample.hand(s) for s in range(4) if s != seat]))
            cards = [c for s in range(4) for c in sample.hand(s)] + [c for p in sample.table for c in p if c]
            assert sample.stock_size + sample.discard_size + len(cards) == 36
        unseen = sum(s["cards"] - len(s["known"]) for s in view["seats"] if s["seat"] != seat)
        if unseen > 1:
            assert len(hidden) > 1


def test_a_trump_taken_from_under_the_stock_is_known_and_never_resampled():
    """R5: the face-up trump, once drawn, is known to be in its holder's hand."""
    game = position(
        hands=[["7D", "QC", "KC", "10S"], ["8H", "KH", "9C", "JD"]], stock_size=0, known={0: ["10S"]}, trump="S"
    )
    state = json.loads(game.to_json())
    state["trump_card"] = "10S"  # it lay under the stock, which is now drawn
    game = Game.from_json(json.dumps(state))
    view = game.view(1)
    assert view["trump_card"] == "10S" and view["seats"][0]["known"] == ["10S"]
    sampler = DealSampler(view)
    rng = random.Random(0)
    for _ in range(20):
        assert "10S" in sampler.sample(rng).hand(0)


def test_a_face_up_trump_nobody_holds_once_the_stock_is_gone_was_discarded():
    game = position(hands=[["7D", "QC", "KC", "JS"], ["8H", "KH", "9C", "JD"]], stock_size=0, trump="S")
    state = json.loads(game.to_json())
    state["trump_card"] = "10S"  # drawn earlier, since played: in the discard pile
    game = Game.from_json(json.dumps(state))
    assert "10S" not in game.hand(0)
    sampler = DealSampler(game.view(1))
    rng = random.Random(0)
    for _ in range(20):
        assert "10S" not in sampler.sample(rng).hand(0)


def test_a_view_that_lists_the_discards_keeps_them_out_of_the_sampled_hands():
    """Should the view ever list the discard pile (public: every card in it was played face up)."""
    game = position(hands=[["7D", "QC", "KC", "JS"], ["8H", "KH", "9C", "JD"]], stock_size=0, trump="S")
    view = game.view(1)
    gone = [c for c in deck(36) if c not in game.hand(0) and c not in game.hand(1)]
    sampler = DealSampler({**view, "discard": gone})
    assert sampler.consistent
    assert sorted(sampler.sample(random.Random(0)).hand(0)) == sorted(game.hand(0))


# ------------------------------------------------------------ determinism


def test_with_a_seed_the_search_plays_the_same_game():
    rules = Rules(variant="perevodnoy", players=3)
    runs = [
        play_game(rules, [search_bot(seed=s, iterations=8) for s in range(3)], seed="same", dealer=1).to_json()
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


def test_the_same_view_gets_the_same_answer_from_one_bot_asked_twice():
    bot = search_bot(seed=5, iterations=30)
    for game, seat in random_positions(Rules(variant="podkidnoy", players=2), 6, seed="twice"):
        view = game.view(seat)
        assert bot.choose(view) == bot.choose(view)


# ---------------------------------------------------------------- budget


def test_the_playout_budget_is_never_exceeded():
    for game, seat in random_positions(Rules(variant="perevodnoy", players=4), 10, seed="budget"):
        bot = search_bot(iterations=25)
        bot.choose(game.view(seat))
        assert 0 < bot.last_stats["playouts"] <= 25


@given(step=st.floats(min_value=0.001, max_value=0.3), seconds=st.floats(min_value=0.05, max_value=2.0))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_playout_starts_after_the_time_budget(step, seconds):
    """With a clock that moves `step` a reading, the bot stops reading it soon after `seconds`.

    Each playout reads the clock once before it starts, so the time spent is
    at most the budget plus one playout (here one step) plus the first reading.
    """
    game = position(
        hands=[["7D", "QC", "KC", "10D", "9H", "AS"], ["8H", "KH", "6S", "9C", "JD", "7C"]], table=[["7H", None]]
    )
    clock = FakeClock(step)
    bot = SearchBot(seed=1, iterations=100_000, seconds=seconds, clock=clock)
    start = clock.now
    assert bot.choose(game.view(1)) in game.view(1)["legal_actions"]
    assert clock.now - start <= seconds + 2 * step + 1e-9
    assert bot.last_stats["playouts"] <= seconds / step + 1


def test_a_budget_too_small_for_one_round_falls_back_to_the_club_players_move():
    game = position(hands=[["7D", "QC", "KC"], ["8H", "KH", "6S", "AS", "9C", "JD"]], table=[["7H", None]])
    view = game.view(1)
    bot = search_bot(iterations=2)  # five candidates: no full round fits
    assert bot.choose(view) == get_bot("medium", seed=0).choose(view)
    assert bot.last_stats["rounds"] == 0


def test_the_levels_keep_to_their_time_budgets():
    for level in ("hard", "expert"):
        bot = get_bot(level, seed=0)
        assert bot.seconds == LEVELS[level]["options"]["seconds"] and bot.iterations > 0
        untimed = get_bot(level, seed=0, timed=False, iterations=10)
        assert untimed.seconds is None and untimed.iterations == 10


def test_choose_is_plain_synchronous_work():
    """The play service calls bots from its Celery task; nothing here awaits or runs in the background."""
    for level in [*LEVELS, "random", "heuristic"]:
        bot = get_bot(level, seed=0)
        assert not inspect.iscoroutinefunction(bot.choose)
        assert not inspect.isasyncgenfunction(bot.choose)


# ---------------------------------------------------------------- strength


def test_search_leads_the_trump_the_club_player_keeps_when_it_wins_the_game():
    """R18, R17: stock empty; leading the ace of trumps forces a take, then the 6H empties the hand.

    Leading the 6H first loses whenever the last card of the opponent beats it.
    """
    game = position(hands=[["AS", "6H"], ["7H"]], stock_size=0, trump="S")
    view = game.view(0)
    assert get_bot("medium", seed=0).choose(view) == "attack 6H"
    assert search_bot(iterations=40).choose(view) == "attack AS"


def test_search_covers_when_taking_would_make_it_the_durak():
    """Stock empty, one card each way: covering with the last card leaves the game (R18)."""
    game = position(hands=[["KC"], ["10D"]], table=[["9D", None]], stock_size=0, trump="S")
    view = game.view(1)
    assert view["legal_actions"] == ["defend 9D with 10D", "take"]
    assert search_bot(iterations=20).choose(view) == "defend 9D with 10D"


# Met in a playout: R22 lets two players pass the queens back and forth for ever,
# each taking in turn, with nobody drawing from the stock.
ENDLESS = {
    "rules": {"variant": "perevodnoy", "players": 2, "partners": False, "deck": 36, "first_bout_limit": 5,
              "throw_in": "all", "trump_show_transfer": False, "trump_six_swap": False},
    "dealer": 0, "trump": "S", "trump_card": "8S",
    "hands": [["8H", "QH", "QS", "6C", "6D", "6S", "JH", "7C"], ["10D", "8C", "9C", "KC", "KS", "AS"]],
    "stock": ["QC", "7H", "QD", "6H", "10S", "AH", "JC", "10C", "9S", "AD", "AC", "JS", "7D", "10H", "9D", "KH",
              "7S", "KD", "9H", "8D", "JD", "8S"],
    "discard": [], "table": [], "attacker": 1, "defender": 0, "taking": False, "passed": [], "first_bout": False,
    "places": [], "left_before_bout": 0, "known": [["8H", "QH", "QS"], []], "shown": [], "transferrers": [],
    "stock_touched": True, "over": False, "durak": None, "losers": [], "lowest_trump": [1, "QS"],
}  # fmt: skip


def test_a_playout_that_never_ends_counts_as_a_draw(monkeypatch):
    """With the club player in every seat (knowing no cards), this position loops for ever."""
    game = Game.from_json(json.dumps(ENDLESS))
    assert search_bot()._playout(game.copy(), 1, "attack KC") == 0.5
    monkeypatch.setattr(search_module, "PLAYOUT_MAX_ACTIONS", 5000)
    assert search_bot()._playout(game.copy(), 1, "attack KC") == 0.5


def test_a_deal_is_played_twice_with_the_seats_swapped():
    assert seats_of_a(4, False) == {0, 2} and seats_of_a(4, True) == {1, 3}
    assert seats_of_a(3, False) == {0, 2} and seats_of_a(3, True) == {1}
    game = play_game(Rules(players=2), [get_bot("medium", 1), get_bot("random", 2)], seed=9)
    a = seats_of_a(2, False)
    assert outcome_for(game, a) == ("draw" if not game.losers else "loss" if game.durak in a else "win")


def test_a_match_counts_every_game_and_is_reproducible():
    rules = Rules(variant="podkidnoy", players=2)
    first = match(rules, ("medium", None), ("random", None), deals=10, seed="m")
    again = match(rules, ("medium", None), ("random", None), deals=10, seed="m")
    assert first == again
    assert first["games"] == 20 == first["wins"] + first["draws"] + first["losses"]
    mean, low, high = first["score"]
    assert low <= mean <= high and first["wins"] > first["losses"]


def test_cards_of_a_full_deck_are_all_accounted_for_in_a_sample():
    game = Game.new(Rules(variant="podkidnoy", players=3, deck=52), seed=4)
    view = game.view(next_seat(game))
    sample = DealSampler(view).sample(random.Random(0))
    held = sorted(c for s in range(3) for c in sample.hand(s))
    assert len(held) + sample.stock_size == 52
    assert set(held) <= set(deck(52))
