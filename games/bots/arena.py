"""Play whole games between bots (tests, tuning, tournaments of bots).

Only the public engine face is used: `Game.new`, `to_move`, `view`, `act`.
"""

from games.engine import Game, Rules


def next_seat(game: Game) -> int:
    """The awaited seat that acts next: the first in `to_move` clockwise from the attacker."""
    waiting = game.to_move()
    if not waiting:
        raise RuntimeError(f"The game waits for nobody but is not over: {game!r}")
    if len(waiting) == 1:
        return waiting[0]
    n, start = game.rules.players, game.attacker
    return min(waiting, key=lambda s: (s - start) % n)


def play_game(rules: Rules, bots, seed, dealer: int = 0, max_actions: int = 10_000, check=None) -> Game:
    """Deal with `seed` and let `bots[seat]` play every seat until the game is over.

    `check(game, seat, view, action)` (optional) is called before each action.
    Returns the finished game (`places`, `durak`, `losers`).
    """
    game = Game.new(rules, seed=seed, dealer=dealer)
    for _ in range(max_actions):
        if game.is_over:
            return game
        seat = next_seat(game)
        view = game.view(seat)
        action = bots[seat].choose(view)
        if check is not None:
            check(game, seat, view, action)
        game.act(seat, action)
    raise RuntimeError(f"No end after {max_actions} actions: {game!r}")


def score(game: Game, seat: int) -> float:
    """1 if `seat`'s side did not lose, 0 if it lost, 0.5 for a draw."""
    if not game.losers:
        return 0.5
    return 0.0 if seat in game.losers else 1.0


def head_to_head(rules: Rules, make_a, make_b, games: int, seed: int = 0) -> float:
    """Two-player match: bot A's mean score, A taking seat 0 and 1 in turn on each deal.

    `make_a(i)` / `make_b(i)` build fresh bots for game `i`. A draw counts 0.5.
    """
    total = 0.0
    for i in range(games):
        a_seat = i % 2
        bots = [None, None]
        bots[a_seat], bots[1 - a_seat] = make_a(i), make_b(i)
        # Each deal is played twice, the bots swapping seats (duplicate style).
        game = play_game(rules, bots, seed=seed * 100_003 + i // 2, dealer=i // 2 % 2)
        total += score(game, a_seat)
    return total / games
