"""The expert level's endgame solver (games/bots/endgame.py).

With two players and the stock empty a seat can name every card of the
other hand (its own hand, the table and the discard pile are the rest), so
the expert plays such positions exactly. These tests check that the solver's
values are the true minimax values, that it finds winning lines the club
player misses, that it keeps to its node and time budgets and that it is
deterministic.
"""

import random

import pytest

from games.bots import LEVELS, SearchBot, get_bot
from games.bots.arena import next_seat
from games.bots.endgame import (
    CLOCK_EVERY,
    DRAW,
    LOSS,
    MAX_DEPTH,
    WIN,
    BudgetExceeded,
    Solver,
    _key,
    is_endgame,
    solve,
)
from games.bots.search import near_endgame, solved_playout
from games.engine import Game, Rules

from .test_bots import position
from .test_search import FakeClock, random_positions


def minimax(game, seat):
    """The plain definition, no pruning: the seat's value of `game` (a position met
    again on the line, or a line of MAX_DEPTH actions, is a draw, as in the solver)."""
    memo = {}  # values of positions whose lines met no repetition (those depend on the line)

    def value(game, line):
        if game.over:
            return (DRAW if not game.losers else (LOSS if seat in game.losers else WIN)), False
        key = _key(game)
        if key in line or len(line) >= MAX_DEPTH:
            return DRAW, True
        if key in memo:
            return memo[key], False
        mover = next_seat(game)
        values, looped = [], False
        for action in game.legal_actions(mover):
            child = game.copy()
            child.act(mover, action)
            v, loop = value(child, line | {key})
            values.append(v)
            looped = looped or loop
        best = max(values) if mover == seat else min(values)
        if not looped:
            memo[key] = best
        return best, looped

    return value(game, frozenset())[0]


def endgames(variant, count, most_cards, seed):
    """Two-player positions of club players' games with the stock empty and at most
    `most_cards` cards in the two hands, the seat awaited."""
    rules = Rules(variant=variant, players=2)
    found = []
    g = 0
    while len(found) < count:
        game = Game.new(rules, seed=f"{seed}:{g}", dealer=g % 2)
        bot = get_bot("medium", seed=g)
        g += 1
        while not game.is_over:
            seat = next_seat(game)
            view = game.view(seat)
            if (
                is_endgame(view)
                and len(view["legal_actions"]) > 1
                and view["seats"][0]["cards"] + view["seats"][1]["cards"] <= most_cards
            ):
                found.append((game, seat))
                break
            game.act(seat, bot.choose(view))
    return found


# ------------------------------------------------------------- exactness


# (Perevodnoy's plain minimax is far dearer: lines that loop cannot share values.)
@pytest.mark.parametrize("variant, most_cards", [("podkidnoy", 5), ("perevodnoy", 4)])
def test_the_solver_gives_the_minimax_value_of_small_endgames(variant, most_cards):
    for game, seat in endgames(variant, 12, most_cards=most_cards, seed=f"exact:{variant}"):
        solver = Solver(seat, budget=10**6)
        assert solver.value(game.copy()) == minimax(game, seat)


def test_only_an_endgame_of_two_players_with_the_stock_gone_is_solved():
    endgame = position(hands=[["KC", "AH", "KH"], ["JH"]], stock_size=0, trump="H")
    assert is_endgame(endgame.view(0)) and is_endgame(endgame.view(1))
    with_stock = position(hands=[["KC", "AH", "KH"], ["JH"]], stock_size=4, trump_card="10H", trump="H")
    assert not is_endgame(with_stock.view(0))
    assert near_endgame(with_stock.view(0)) and not near_endgame(endgame.view(0))
    three = position(hands=[["KC"], ["AH"], ["JH"]], stock_size=0, trump="H", players=3)
    assert not is_endgame(three.view(0))


# ------------------------------------------------ lines the club player misses


def test_leading_the_trump_king_is_the_only_win_and_the_club_player_misses_it():
    """Trump hearts; A holds K♣ A♥ K♥, B only J♥. The club player leads his lowest card,
    K♣: B covers with J♥ and leaves, A is the durak. Leading K♥ wins: B must take it,
    A throws in K♣, then leads A♥, which B cannot beat; A♥ is only a draw."""
    game = position(hands=[["KC", "AH", "KH"], ["JH"]], stock_size=0, trump="H")
    view = game.view(0)
    assert get_bot("medium", seed=0).choose(view) == "attack KC"
    action, values = solve(game, 0, view["legal_actions"], budget=10_000)
    assert action == "attack KH"
    assert values["attack KH"] == WIN
    assert [a for a in view["legal_actions"] if Solver(0).value(_after(game, 0, a)) == WIN] == ["attack KH"]
    assert get_bot("expert", seed=0, timed=False, iterations=20).choose(view) == "attack KH"


def test_perevodnoy_the_jack_of_trumps_is_the_only_winning_lead():
    """Perevodnoy, trump hearts; A: A♥ J♥ Q♥ 9♦, B: Q♠ 8♥. Only J♥ wins; the club
    player leads his lowest card, 9♦, and loses."""
    game = position(variant="perevodnoy", hands=[["AH", "JH", "9D", "QH"], ["QS", "8H"]], stock_size=0, trump="H")
    view = game.view(0)
    assert get_bot("medium", seed=0).choose(view) == "attack 9D"
    values = {a: Solver(0).value(_after(game, 0, a)) for a in view["legal_actions"]}
    assert [a for a, v in values.items() if v == WIN] == ["attack JH"]
    assert values["attack 9D"] == LOSS
    assert get_bot("expert", seed=0, timed=False, iterations=20).choose(view) == "attack JH"


def test_a_lost_endgame_is_still_played_by_search_for_the_best_practical_chance():
    """Trump clubs; B leads against A's A♣ K♣ with A♥ J♦ and loses whatever he leads: the
    solver says so and the bot plays on with its playouts (a club player may still go wrong)."""
    game = position(hands=[["AC", "KC"], ["AH", "JD"]], stock_size=0, trump="C", attacker=1)
    view = game.view(1)
    assert sorted(view["legal_actions"]) == ["attack AH", "attack JD"]
    bot = SearchBot(seed=0, iterations=30, seconds=None, endgame_nodes=10_000)
    assert bot.choose(view) in view["legal_actions"]
    assert bot.last_stats["solved"] and bot.last_stats["lost"] and bot.last_stats["playouts"] > 0


def _after(game, seat, action):
    child = game.copy()
    child.act(seat, action)
    return child


# ---------------------------------------------------------------- budgets

BIG = dict(
    hands=[["6H", "8C", "JD", "QS", "KH", "AC", "7S"], ["7H", "9C", "10D", "KS", "AD", "6C", "QH"]],
    stock_size=0,
    trump="S",
)


def test_the_solver_stops_at_its_node_budget():
    game = position(**BIG)
    solver = Solver(0, budget=50)
    with pytest.raises(BudgetExceeded):
        solver.value(game)
    assert solver.nodes == 51  # the position over budget is counted, not searched
    assert solve(game, 0, game.view(0)["legal_actions"], budget=50) == (None, None)


def test_over_its_endgame_budget_the_bot_searches_as_before():
    game = position(**BIG)
    view = game.view(0)
    bot = SearchBot(seed=0, iterations=40, seconds=None, endgame_nodes=50)
    assert bot.choose(view) in view["legal_actions"]
    assert bot.last_stats["solved"] is False and bot.last_stats["playouts"] > 0


def test_the_solver_reads_the_clock_and_stops_at_the_deadline():
    game = position(**BIG)
    clock = FakeClock(step=1.0)
    solver = Solver(0, budget=10**9, deadline=clock() + 0.5, clock=clock)
    with pytest.raises(BudgetExceeded):
        solver.value(game)
    assert solver.nodes == CLOCK_EVERY and clock.reads == 2


@pytest.mark.parametrize("seconds", [0.2, 1.0])
def test_the_expert_keeps_to_its_time_budget_in_an_endgame(seconds):
    """The clock moves 0.05 s a reading: the solver reads it every CLOCK_EVERY positions,
    the playouts after it once each, and nothing starts after the budget."""
    game = position(**BIG)
    clock = FakeClock(step=0.05)
    bot = SearchBot(seed=0, iterations=10**6, seconds=seconds, clock=clock, endgame_nodes=10**9)
    start = clock.now
    assert bot.choose(game.view(0)) in game.view(0)["legal_actions"]
    assert clock.now - start <= seconds + 3 * 0.05 + 1e-9


def test_near_the_end_each_playout_solves_its_deal_within_the_playout_budget():
    game = position(
        hands=[["6H", "8C", "JD", "QS", "KH", "AC"], ["7H", "9C", "10D", "KS", "AD", "6C"]],
        stock_size=2,
        trump_card="10S",
        trump="S",
    )
    view = game.view(0)
    assert near_endgame(view)
    bot = SearchBot(seed=0, iterations=160, seconds=None, endgame_nodes=10_000)
    assert bot.choose(view) in view["legal_actions"]
    assert 0 < bot.last_stats["playouts"] <= 160 // 8


def test_a_solved_playout_agrees_with_the_solver_once_the_stock_is_gone():
    game = position(hands=[["KC", "AH", "KH"], ["JH"]], stock_size=0, trump="H")
    policy = get_bot("medium", seed=0)
    for action, value in [("attack KC", LOSS), ("attack KH", WIN), ("attack AH", DRAW)]:
        assert solved_playout(game.copy(), 0, action, policy, Solver(0, 10_000)) == value


# ------------------------------------------------------------ determinism


def test_with_a_seed_the_expert_repeats_itself_in_the_endgame_and_near_it():
    rules = Rules(variant="podkidnoy", players=2)
    positions = endgames("podkidnoy", 4, most_cards=12, seed="repeat")
    positions += [(g, s) for g, s in random_positions(rules, 40, seed="repeat") if near_endgame(g.view(s))][:4]
    assert len(positions) >= 6
    for game, seat in positions:
        view = game.view(seat)
        answers = {SearchBot(seed=9, iterations=48, seconds=None, endgame_nodes=2_000).choose(view) for _ in range(2)}
        assert len(answers) == 1 and answers <= set(view["legal_actions"])


def test_the_solver_has_no_randomness():
    for game, seat in endgames("perevodnoy", 3, most_cards=8, seed="norandom"):
        legal = game.legal_actions(seat)
        random.seed(1)
        first = solve(game, seat, legal, budget=20_000)
        random.seed(2)
        assert solve(game, seat, legal, budget=20_000) == first


def test_expert_solves_endgames_and_hard_does_not():
    assert LEVELS["expert"]["options"]["endgame_nodes"] > 0
    assert get_bot("expert").endgame_nodes > 0 and get_bot("hard").endgame_nodes == 0
