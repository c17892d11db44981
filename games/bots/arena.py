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


# ------------------------------------------------------------------ matches
# `manage.py arena`: two levels on the same deals, seats swapped, in parallel.


def seats_of_a(players: int, swapped: bool) -> set[int]:
    """Bot A takes every other seat (0, 2, ...), or the others when `swapped`.

    With partners these are exactly the teams (R2, T4); without, the two
    games of a deal give each bot every seat's cards once.
    """
    return {s for s in range(players) if s % 2 == (1 if swapped else 0)}


def outcome_for(game: Game, a_seats: set[int]) -> str:
    """ "win" if a side of B lost, "loss" if A did (its seat is the durak), "draw" if nobody lost."""
    if not game.losers:
        return "draw"
    return "loss" if a_seats & set(game.losers) else "win"


def play_deal(task: tuple) -> list[str]:
    """One deal played twice, A's and B's seats swapped: [outcome of A unswapped, swapped].

    `task` = (rules as a dict, (level, iterations) of A, same of B, match seed,
    deal number); plain values, so that worker processes can receive it.
    """
    from games.bots import get_bot  # the package imports this module

    rules_data, (level_a, iter_a), (level_b, iter_b), seed, deal = task
    rules = Rules.from_dict(rules_data)
    deal_seed = f"arena:{seed}:{deal}"
    outcomes = []
    for swapped in (False, True):
        a_seats = seats_of_a(rules.players, swapped)
        bots = [
            get_bot(level_a, seed=f"{deal_seed}:a{s}", iterations=iter_a, timed=False)
            if s in a_seats
            else get_bot(level_b, seed=f"{deal_seed}:b{s}", iterations=iter_b, timed=False)
            for s in range(rules.players)
        ]
        try:
            game = play_game(rules, bots, seed=deal_seed, dealer=deal % rules.players)
        except RuntimeError:
            # Perevodnoy can loop for ever (a rank passed back and forth, taken in turn).
            outcomes.append("unfinished")
            continue
        outcomes.append(outcome_for(game, a_seats))
    return outcomes


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and 95 % confidence interval (normal approximation) of independent values."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0, 1.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = 1.96 * (var / n) ** 0.5
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def match(rules: Rules, a: tuple, b: tuple, deals: int, seed=0, workers: int = 1, progress=None) -> dict:
    """Play `deals` deals twice each (2 * deals games), `a` and `b` as (level, iterations or None).

    Returns counts of A's wins, draws and losses (a game still going after
    10,000 actions is "unfinished" and counts as a draw), and per deal (the two games
    of a deal share their cards, so they are one sample) the shares with a 95 %
    interval: `not_lost` (a draw counts as not lost) and `score` (a draw is 1/2).
    """
    tasks = [(rules.to_dict(), tuple(a), tuple(b), seed, deal) for deal in range(deals)]
    results = []
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for outcomes in pool.imap(play_deal, tasks):
                results.append(outcomes)
                if progress:
                    progress(len(results), deals)
    else:
        for task in tasks:
            results.append(play_deal(task))
            if progress:
                progress(len(results), deals)
    flat = [o for pair in results for o in pair]
    not_lost = [sum(o != "loss" for o in pair) / 2 for pair in results]
    points = {"win": 1.0, "draw": 0.5, "unfinished": 0.5, "loss": 0.0}
    score = [sum(points[o] for o in pair) / 2 for pair in results]
    return {
        "games": len(flat),
        "wins": flat.count("win"),
        "draws": flat.count("draw") + flat.count("unfinished"),
        "unfinished": flat.count("unfinished"),
        "losses": flat.count("loss"),
        "not_lost": interval(not_lost),
        "score": interval(score),
    }
