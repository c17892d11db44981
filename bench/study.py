"""Which rating model predicts Durak results best: a simulation study (pure Python, no Django).

A population of simulated players with a hidden, known skill plays thousands of
games with the real engine; each skill is the chance that the player makes the
heuristic bot's move instead of a random legal one. The rating models then see
the results in the order the games were played and, on the held-out last part
of them, predict every game before they learn its result (online evaluation).

    population = make_population(200, seed=1)
    plans = plan_games(population, 20_000, seed=1)
    records = simulate(plans, workers=2)
    results = evaluate(population, records, default_raters())

`python manage.py rating_study` runs it and prints the table for docs/ratings.md.
"""

from __future__ import annotations

import bisect
import gzip
import itertools
import json
import math
import multiprocessing
import random
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

from games.bots import get_bot
from games.bots.arena import play_game
from games.engine import Rules

VARIANTS = ("podkidnoy", "perevodnoy")

# (kind, players, partners, weight): how often each table is drawn. Two-player
# tables dominate a Durak club; 2v2 is the team game (R2).
TABLE_KINDS = (
    ("2", 2, False, 30),
    ("3", 3, False, 15),
    ("4", 4, False, 12),
    ("2v2", 4, True, 20),
    ("5", 5, False, 10),
    ("6", 6, False, 13),
)
_KIND = {kind: (players, partners) for kind, players, partners, _ in TABLE_KINDS}

HOLDOUT = 0.25
# Players present when the club opens; the others join at random moments of the
# first 80 % of the games, so the held-out games also rate newcomers.
FOUNDERS = 0.6

_P_FLOOR = 1e-15


# --------------------------------------------------------------- population


@dataclass(frozen=True)
class SimPlayer:
    """A simulated member: `skill` is the chance of playing the heuristic bot's move."""

    id: int
    skill: float
    activity: float  # relative chance of being drawn for a table
    joins: int  # index of the first game this player may sit at


def make_population(size: int, seed: int, games: int = 20_000) -> list[SimPlayer]:
    """`size` players with skills spread evenly over [0, 1] and uneven activity.

    Activity is log-normal (a few regulars play many games, many play few),
    like a real club; `games` only places the late joiners in time.
    """
    if size < 6:
        raise ValueError(f"A study needs at least 6 players (one full table), not {size}.")
    rng = random.Random(f"population-{seed}")
    skills = [i / (size - 1) for i in range(size)]
    rng.shuffle(skills)
    founders = max(6, round(size * FOUNDERS))
    players = []
    for pid, skill in enumerate(skills):
        joins = 0 if pid < founders else rng.randrange(int(games * 0.8) + 1)
        players.append(SimPlayer(pid, skill, math.exp(rng.gauss(0.0, 0.8)), joins))
    return players


class MixedBot:
    """Plays the heuristic bot's choice with probability `skill`, else a random legal action."""

    def __init__(self, skill: float, seed: int):
        self.skill = skill
        self.rng = random.Random(seed)
        self.heuristic = get_bot("heuristic", seed=seed)
        self.random = get_bot("random", seed=seed + 1)

    def choose(self, view: dict) -> str | None:
        bot = self.heuristic if self.rng.random() < self.skill else self.random
        return bot.choose(view)


# ------------------------------------------------------------------- games


def plan_games(population: Sequence[SimPlayer], games: int, seed: int) -> list[dict]:
    """Who plays which table, in which order: everything a worker needs to play one game."""
    rng = random.Random(f"plan-{seed}")
    kinds = [k for k, *_ in TABLE_KINDS]
    kind_weights = [w for *_, w in TABLE_KINDS]
    by_arrival = sorted(population, key=lambda p: p.joins)
    arrivals = [p.joins for p in by_arrival]
    plans = []
    for index in range(games):
        present = by_arrival[: bisect.bisect_right(arrivals, index)]
        kind = rng.choices(kinds, kind_weights)[0]
        players, partners = _KIND[kind]
        chosen = _weighted_sample(rng, present, players)
        plans.append(
            {
                "kind": kind,
                "variant": rng.choice(VARIANTS),
                "partners": partners,
                "seats": [p.id for p in chosen],
                "skills": [p.skill for p in chosen],
                "seed": rng.getrandbits(48),
                "dealer": rng.randrange(players),
            }
        )
    return plans


def _weighted_sample(rng: random.Random, players: Sequence[SimPlayer], k: int) -> list[SimPlayer]:
    # Efraimidis-Spirakis: k distinct players, each drawn in proportion to activity.
    keyed = sorted(players, key=lambda p: rng.random() ** (1.0 / p.activity), reverse=True)
    return keyed[:k]


def play_planned(plan: dict) -> dict:
    """Play one planned game with the engine and return its record (places per seat, losers)."""
    n = len(plan["seats"])
    rules = Rules(variant=plan["variant"], players=n, partners=plan["partners"])
    bots = [MixedBot(skill, plan["seed"] * 16 + 2 * seat) for seat, skill in enumerate(plan["skills"])]
    game = play_game(rules, bots, seed=plan["seed"], dealer=plan["dealer"])
    places = game.places
    return {
        "kind": plan["kind"],
        "variant": plan["variant"],
        "partners": plan["partners"],
        "seats": list(plan["seats"]),
        "places": [places[seat] for seat in range(n)],
        "losers": sorted(game.losers),
    }


def simulate(plans: Sequence[dict], workers: int = 1, progress: Callable[[int], None] | None = None) -> list[dict]:
    """Play every plan, in order; `workers` > 1 uses that many processes."""
    if workers < 1:
        raise ValueError(f"At least one worker is needed, not {workers}.")
    records = []
    if workers == 1:
        played: Iterable[dict] = map(play_planned, plans)
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(workers)
        played = pool.imap(play_planned, plans, chunksize=64)
    try:
        for record in played:
            records.append(record)
            if progress is not None:
                progress(len(records))
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return records


def save_games(path: str, population: Sequence[SimPlayer], records: Sequence[dict], meta: dict) -> None:
    data = {"meta": meta, "population": [asdict(p) for p in population], "games": list(records)}
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"))


def load_games(path: str) -> tuple[list[SimPlayer], list[dict], dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    return [SimPlayer(**p) for p in data["population"]], data["games"], data["meta"]


def sides_and_ranks(record: dict) -> tuple[list[list[int]], list[int]]:
    """The sides of a game (lists of player ids) and their ranks (lower is better, equal is a tie).

    Without partners every seat is a side ranked by its place (shared places
    are ties). With partners the two teams (seats 0+2 against 1+3, R2) are the
    sides: the team holding the losers is second, a draw (no losers) ties them.
    """
    seats, places = record["seats"], record["places"]
    if not record["partners"]:
        return [[pid] for pid in seats], list(places)
    losers = set(record["losers"])
    sides, ranks = [], []
    for team in (0, 1):
        members = [s for s in range(len(seats)) if s % 2 == team]
        sides.append([seats[s] for s in members])
        ranks.append(2 if losers & set(members) else 1)
    return sides, ranks


# ------------------------------------------------------------------ raters


class OpenSkillRater:
    """One openskill model, one rating per (variant, player).

    `rate(model, teams, ranks)` updates (ranks given as places); it may be
    replaced by a corrected rating function with the same arguments.

    Two pairwise chances are scored. `p_win` is the model's own likelihood
    of one side finishing ahead of the other, the quantity its update is built
    on: logistic for PlackettLuce and BradleyTerry, the normal distribution for
    ThurstoneMosteller, over c = sqrt(sigma_a^2 + sigma_b^2 + 2 beta^2) (a
    team's mu and sigma^2 are its members' sums). `p_win_library` is the
    library's `predict_win` on the two sides, which uses the normal
    distribution for every model.
    """

    def __init__(self, name: str, model, rate: Callable | None = None):
        self.name = name
        self.model = model
        self.rate = rate or (lambda model, teams, ranks: model.rate(teams, ranks=ranks))
        self.logistic = "Thurstone" not in type(model).__name__
        self.two_beta_sq = 2.0 * model.beta**2
        self.ratings: dict[tuple[str, int], object] = {}

    def _rating(self, variant: str, pid: int):
        key = (variant, pid)
        rating = self.ratings.get(key)
        if rating is None:
            rating = self.ratings[key] = self.model.rating()
        return rating

    def p_win(self, variant: str, side_a: list[int], side_b: list[int]) -> float:
        team_a = [self._rating(variant, p) for p in side_a]
        team_b = [self._rating(variant, p) for p in side_b]
        mu = sum(r.mu for r in team_a) - sum(r.mu for r in team_b)
        c = math.sqrt(sum(r.sigma**2 for r in team_a) + sum(r.sigma**2 for r in team_b) + self.two_beta_sq)
        if self.logistic:
            return 1.0 / (1.0 + math.exp(-mu / c))
        return 0.5 * math.erfc(-mu / c / math.sqrt(2.0))

    def p_win_library(self, variant: str, side_a: list[int], side_b: list[int]) -> float:
        team_a = [self._rating(variant, p) for p in side_a]
        team_b = [self._rating(variant, p) for p in side_b]
        return self.model.predict_win([team_a, team_b])[0]

    def update(self, variant: str, sides: list[list[int]], ranks: list[int]) -> None:
        teams = [[self._rating(variant, p) for p in side] for side in sides]
        new = self.rate(self.model, teams, ranks)
        for side, team in zip(sides, new):
            for pid, rating in zip(side, team):
                self.ratings[(variant, pid)] = rating

    def skill(self, variant: str, pid: int) -> float:
        return self._rating(variant, pid).mu

    def shown(self, variant: str, pid: int) -> float:
        return self._rating(variant, pid).ordinal()


def corrected_rate(model, teams, ranks):
    """Rate an openskill `model` through the site's own `ratings.model.rate`: its tie correction
    (ties averaged over the ways of breaking them), the library rating each strict order.

    Pair this function with `site_model(name)` so that the model has the site's parameters.
    """
    from ratings import model as site

    def library(plain, strict):
        rating = model.rating
        rated = model.rate([[rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in plain], ranks=list(strict))
        return [[(r.mu, r.sigma) for r in team] for team in rated]

    plain = [[(r.mu, r.sigma) for r in team] for team in teams]
    new = site.rate(plain, ranks, strict=library)
    return [[model.rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in new]


def site_label(name: str) -> str:
    """The row of an openskill model rated with the site's beta (`ratings.model.BETA`) and tie correction."""
    from ratings import model as site

    return f"{name} as the site rates it (beta {site.BETA:g}, tie correction)"


def site_model(name: str):
    """The openskill model `name` with the site's mu, sigma and beta."""
    from openskill import models

    from ratings import model as site

    return getattr(models, name)(mu=site.MU, sigma=site.SIGMA, beta=site.BETA)


def bga_k(games_played: int) -> float:
    """Board Game Arena's schedule: K 60 for the first 10 games, 40 for the next 10, then 20."""
    return 60.0 if games_played < 10 else 40.0 if games_played < 20 else 20.0


class EloRater:
    """Pairwise Elo: every pair of opponents at a table is one game (a tie is half a point).

    Teammates are not compared; a side's strength is its members' mean rating.
    All pairs of a game use the ratings from before the game.
    """

    def __init__(self, name: str, k: float | Callable[[int], float] = 32.0, start: float = 1500.0):
        self.name = name
        self.k = k if callable(k) else (lambda _games, k=k: k)
        self.start = start
        self.ratings: dict[tuple[str, int], float] = {}
        self.games: dict[tuple[str, int], int] = defaultdict(int)

    @staticmethod
    def expected(r_a: float, r_b: float) -> float:
        return 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))

    def _mean(self, variant: str, side: list[int]) -> float:
        return sum(self.ratings.get((variant, p), self.start) for p in side) / len(side)

    def p_win(self, variant: str, side_a: list[int], side_b: list[int]) -> float:
        return self.expected(self._mean(variant, side_a), self._mean(variant, side_b))

    def update(self, variant: str, sides: list[list[int]], ranks: list[int]) -> None:
        before = {p: self.ratings.get((variant, p), self.start) for side in sides for p in side}
        delta: dict[int, float] = defaultdict(float)
        for i, j in itertools.combinations(range(len(sides)), 2):
            score = 1.0 if ranks[i] < ranks[j] else 0.0 if ranks[i] > ranks[j] else 0.5
            for a in sides[i]:
                for b in sides[j]:
                    e = self.expected(before[a], before[b])
                    delta[a] += self.k(self.games[(variant, a)]) * (score - e)
                    delta[b] += self.k(self.games[(variant, b)]) * (e - score)
        for p, r in before.items():
            self.ratings[(variant, p)] = r + delta[p]
            self.games[(variant, p)] += 1

    def skill(self, variant: str, pid: int) -> float:
        return self.ratings.get((variant, pid), self.start)

    shown = skill


class CoinRater:
    """No model at all: every side has an even chance. The floor any model must beat."""

    name = "Coin (no model)"

    def p_win(self, variant, side_a, side_b) -> float:
        return 0.5

    def update(self, variant, sides, ranks) -> None:
        pass

    def skill(self, variant, pid) -> float:
        return 0.0

    shown = skill


MODEL_NAMES = ("PlackettLuce", "BradleyTerryFull", "ThurstoneMostellerFull")
DEFAULT_BETA = 25.0 / 6.0  # openskill's default: sigma / 2
BETA_GRID = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)  # multiples of the default beta tried on validation games
ELO_K_GRID = (2.0, 4.0, 8.0, 16.0, 32.0)


def openskill_model(name: str, beta_scale: float = 1.0):
    from openskill import models

    return getattr(models, name)(beta=DEFAULT_BETA * beta_scale)


def openskill_models() -> dict[str, object]:
    return {name: openskill_model(name) for name in MODEL_NAMES}


def default_raters(
    corrected: Callable | None = None, beta_scales: dict[str, float] | None = None, elo_k: float | None = None
) -> list:
    """The compared models.

    openskill as installed; as the site rates it (`corrected`, normally
    `corrected_rate`, with the site's own model parameters); with beta tuned
    (`beta_scales`: model -> multiple of the default beta); the two Elo
    baselines and a tuned K; and a coin.
    """
    raters: list = [OpenSkillRater(name, openskill_model(name)) for name in MODEL_NAMES]
    if corrected is not None:
        raters += [OpenSkillRater(site_label(name), site_model(name), corrected) for name in MODEL_NAMES]
    for name, scale in (beta_scales or {}).items():
        raters.append(OpenSkillRater(f"{name}, beta x{scale:g}", openskill_model(name, scale)))
    raters += [EloRater("Elo pairwise K=32", 32.0), EloRater("Elo pairwise K=60/40/20 (BGA)", bga_k)]
    if elo_k is not None and elo_k != 32.0:
        raters.append(EloRater(f"Elo pairwise K={elo_k:g}", elo_k))
    raters.append(CoinRater())
    return raters


def tune(population: Sequence[SimPlayer], records: Sequence[dict], holdout: float = HOLDOUT) -> dict:
    """Choose each openskill model's beta and the Elo K without touching the held-out games.

    The games before the held-out part are played again as their own study:
    the last third of them (games 50-75 % with the default split) is the
    validation part, and the lowest validation log-loss wins.
    """
    train = records[: len(records) - math.ceil(len(records) * holdout)]
    validation_share = holdout / (1.0 - holdout)
    raters: list = [
        OpenSkillRater(f"{name}, beta x{scale:g}", openskill_model(name, scale))
        for name in MODEL_NAMES
        for scale in BETA_GRID
    ]
    raters += [EloRater(f"Elo pairwise K={k:g}", k) for k in ELO_K_GRID]
    results = evaluate(population, train, raters, holdout=validation_share)
    best: dict = {"beta_scales": {}, "validation": results}
    for name in MODEL_NAMES:
        mine = [(r, scale) for r, scale in zip(results, itertools.cycle(BETA_GRID)) if r.name.startswith(name + ",")]
        best["beta_scales"][name] = min(mine, key=lambda rs: rs[0].log_loss)[1]
    elo = results[len(MODEL_NAMES) * len(BETA_GRID) :]
    best["elo_k"] = ELO_K_GRID[min(range(len(elo)), key=lambda i: elo[i].log_loss)]
    return best


# -------------------------------------------------------------- evaluation


@dataclass
class Tally:
    """Pairwise predictions of one model on held-out games."""

    pairs: int = 0  # every pair of opposing sides, ties included
    decided: int = 0  # pairs that did not tie
    correct: float = 0.0  # decided pairs ordered right (an even 0.5 chance earns half)
    log_loss_sum: float = 0.0

    def add(self, p: float, outcome: float) -> None:
        self.pairs += 1
        q = min(max(p, _P_FLOOR), 1.0 - _P_FLOOR)
        self.log_loss_sum -= outcome * math.log(q) + (1.0 - outcome) * math.log(1.0 - q)
        if outcome != 0.5:
            self.decided += 1
            favoured = 1.0 if p > 0.5 else 0.0 if p < 0.5 else 0.5
            self.correct += favoured if outcome == 1.0 else 1.0 - favoured

    @property
    def accuracy(self) -> float:
        return self.correct / self.decided if self.decided else float("nan")

    @property
    def log_loss(self) -> float:
        return self.log_loss_sum / self.pairs if self.pairs else float("nan")


@dataclass
class ModelResult:
    name: str
    accuracy: float
    log_loss: float
    pairs: int
    decided: int
    log_loss_library: float | None  # openskill's predict_win as the chance (None for the others)
    spearman_skill: float  # final mu (or Elo) against the hidden skill, mean of the variants
    spearman_shown: float  # final displayed value (ordinal for openskill) against the hidden skill
    seconds: float  # rating and predicting every game, this model alone
    by_kind: dict[str, dict] = field(default_factory=dict)
    game_losses: list[float] = field(default_factory=list, repr=False)  # log-loss summed per held-out game

    def to_json(self) -> dict:
        data = asdict(self)
        del data["game_losses"]
        return data


def evaluate(
    population: Sequence[SimPlayer], records: Sequence[dict], raters: Sequence, holdout: float = HOLDOUT
) -> list[ModelResult]:
    """Rate `records` in order; predict each pair of sides of the last `holdout` part before rating it."""
    if not 0 < holdout <= 1:
        raise ValueError(f"The held-out share must be in (0, 1], not {holdout}.")
    first_tested = len(records) - math.ceil(len(records) * holdout)
    games = [(r["variant"], r["kind"], *sides_and_ranks(r)) for r in records]
    seen: dict[str, set[int]] = {v: set() for v in VARIANTS}
    for variant, _, sides, _ in games:
        seen[variant].update(p for side in sides for p in side)
    skills = {p.id: p.skill for p in population}
    results = []
    for rater in raters:
        total, library, by_kind = Tally(), Tally(), defaultdict(Tally)
        p_library = getattr(rater, "p_win_library", None)
        game_losses = []
        started = time.perf_counter()
        for index, (variant, kind, sides, ranks) in enumerate(games):
            if index >= first_tested:
                before = total.log_loss_sum
                for i, j in itertools.combinations(range(len(sides)), 2):
                    p = rater.p_win(variant, sides[i], sides[j])
                    outcome = 1.0 if ranks[i] < ranks[j] else 0.0 if ranks[i] > ranks[j] else 0.5
                    total.add(p, outcome)
                    by_kind[kind].add(p, outcome)
                    if p_library is not None:
                        library.add(p_library(variant, sides[i], sides[j]), outcome)
                game_losses.append(total.log_loss_sum - before)
            rater.update(variant, sides, ranks)
        seconds = time.perf_counter() - started
        results.append(
            ModelResult(
                name=rater.name,
                accuracy=total.accuracy,
                log_loss=total.log_loss,
                pairs=total.pairs,
                decided=total.decided,
                log_loss_library=library.log_loss if p_library is not None else None,
                spearman_skill=_mean_spearman(seen, skills, rater.skill),
                spearman_shown=_mean_spearman(seen, skills, rater.shown),
                seconds=seconds,
                by_kind={
                    k: {"accuracy": t.accuracy, "log_loss": t.log_loss, "pairs": t.pairs}
                    for k, t in sorted(by_kind.items())
                },
                game_losses=game_losses,
            )
        )
    return results


def _mean_spearman(seen: dict[str, set[int]], skills: dict[int, float], value: Callable) -> float:
    rhos = []
    for variant, players in seen.items():
        if len(players) > 2:
            ids = sorted(players)
            rhos.append(spearman([skills[p] for p in ids], [value(variant, p) for p in ids]))
    rhos = [r for r in rhos if not math.isnan(r)]
    return sum(rhos) / len(rhos) if rhos else float("nan")


def _ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; equal values share the mean of their ranks."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson's on ranks, ties averaged); nan if a side is constant."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError("Spearman's correlation needs two equally long lists of at least two values.")
    rx, ry = _ranks(xs), _ranks(ys)
    mean = (len(xs) + 1) / 2
    cov = sum((a - mean) * (b - mean) for a, b in zip(rx, ry))
    vx = sum((a - mean) ** 2 for a in rx)
    vy = sum((b - mean) ** 2 for b in ry)
    if vx == 0 or vy == 0:
        return float("nan")
    return cov / math.sqrt(vx * vy)


def paired_difference(a: ModelResult, b: ModelResult) -> tuple[float, float]:
    """Log-loss of `a` minus `b` per pair, and its standard error (games are the independent units)."""
    diffs = [x - y for x, y in zip(a.game_losses, b.game_losses)]
    if a.pairs == 0 or len(diffs) < 2:
        return float("nan"), float("nan")
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
    return sum(diffs) / a.pairs, sd * math.sqrt(len(diffs)) / a.pairs


def winner(results: Sequence[ModelResult]) -> ModelResult:
    """The lowest held-out log-loss (a proper score: it rewards honest chances); accuracy breaks a tie."""
    models = [r for r in results if r.name != CoinRater.name]
    return min(models, key=lambda r: (round(r.log_loss, 4), -r.accuracy))


# -------------------------------------------------------------------- ties


def tie_findings(models: dict[str, object] | None = None) -> list[dict]:
    """How each openskill model, as installed, treats ties between players with equal ratings.

    `symmetric_*`: every tied player gets the same new rating. `order_*`: from
    equal ratings, a better place never ends below a worse one (ranks as given),
    neither in mu nor in the shown conservative estimate (ordinal).
    """
    models = models or openskill_models()
    checks = {
        "symmetric_1v1": [1, 1],
        "symmetric_1v1_scores": None,  # issue 173 used scores=[1, 1] rather than ranks
        "symmetric_3way": [1, 1, 1],
        "order_1_2_2_3": [1, 2, 2, 3],
        "order_1_1_2_3_4": [1, 1, 2, 3, 4],
        "order_1_2_3_2_4": [1, 2, 3, 2, 4],
    }
    rows = []
    for name, model in models.items():
        row: dict = {"model": name}
        for check, ranks in checks.items():
            if ranks is None:
                new = model.rate([[model.rating()], [model.rating()]], scores=[1, 1])
                ranks = [1, 1]
            else:
                new = model.rate([[model.rating()] for _ in ranks], ranks=ranks)
            mus = [team[0].mu for team in new]
            ordinals = [team[0].ordinal() for team in new]
            if check.startswith("symmetric"):
                row[check] = ties_equal(mus, ranks) and ties_equal(ordinals, ranks)
            else:
                row[check] = order_kept(mus, ranks) and order_kept(ordinals, ranks)
            row[f"{check}_mu"] = [round(mu, 3) for mu in mus]
            row[f"{check}_ordinal"] = [round(o, 3) for o in ordinals]
        rows.append(row)
    return rows


def ties_equal(values: Sequence[float], ranks: Sequence[int], tolerance: float = 1e-9) -> bool:
    """Do all sides with the same rank hold the same value?"""
    groups: dict[int, list[float]] = defaultdict(list)
    for value, rank in zip(values, ranks):
        groups[rank].append(value)
    return all(max(g) - min(g) <= tolerance for g in groups.values())


def order_kept(values: Sequence[float], ranks: Sequence[int], tolerance: float = 1e-9) -> bool:
    """From equal starts: does every better rank end at or above every worse rank (ties equal)?"""
    pairs = list(zip(ranks, values))
    for (rank_a, a), (rank_b, b) in itertools.combinations(pairs, 2):
        if rank_a < rank_b and a < b - tolerance or rank_b < rank_a and b < a - tolerance:
            return False
    return ties_equal(values, ranks, tolerance)


# -------------------------------------------------------------------- report


def format_table(results: Sequence[ModelResult]) -> str:
    """A Markdown table of the held-out metrics, best log-loss first."""
    lines = [
        "| Model | Pairwise order accuracy | Log-loss | Log-loss minus the best's (2 SE) | Log-loss, predict_win "
        "| Spearman (mu) | Spearman (shown) | Seconds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    best = min(results, key=lambda r: r.log_loss)
    for r in sorted(results, key=lambda r: r.log_loss):
        library = "-" if r.log_loss_library is None else f"{r.log_loss_library:.4f}"
        diff, se = paired_difference(r, best)
        gap = "-" if r is best or math.isnan(diff) else f"+{diff:.4f} (±{2 * se:.4f})"
        lines.append(
            f"| {r.name} | {r.accuracy:.4f} | {r.log_loss:.4f} | {gap} | {library} | {r.spearman_skill:.3f} | "
            f"{r.spearman_shown:.3f} | {r.seconds:.1f} |"
        )
    return "\n".join(lines)


def format_kinds(results: Sequence[ModelResult]) -> str:
    """Accuracy / log-loss per table kind."""
    kinds = [k for k, *_ in TABLE_KINDS]
    lines = ["| Model | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for r in sorted(results, key=lambda r: r.log_loss):
        cells = []
        for k in kinds:
            t = r.by_kind.get(k)
            cells.append(f"{t['accuracy']:.3f} / {t['log_loss']:.3f}" if t else "-")
        lines.append(f"| {r.name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_ties(rows: Sequence[dict]) -> str:
    checks = [k for k in rows[0] if k != "model" and not k.endswith(("_mu", "_ordinal"))] if rows else []
    lines = ["| Model | " + " | ".join(checks) + " |", "|---|" + "---|" * len(checks)]
    for row in rows:
        lines.append(f"| {row['model']} | " + " | ".join("ok" if row[c] else "WRONG" for c in checks) + " |")
    return "\n".join(lines)


def summarize_records(records: Sequence[dict]) -> dict:
    """What was played: games per table kind and variant, draws, games with shared places."""
    kinds: dict[str, int] = defaultdict(int)
    variants: dict[str, int] = defaultdict(int)
    draws = shared = 0
    for r in records:
        kinds[r["kind"]] += 1
        variants[r["variant"]] += 1
        if not r["losers"]:
            draws += 1
        _, ranks = sides_and_ranks(r)
        if len(set(ranks)) < len(ranks):
            shared += 1
    return {
        "games": len(records),
        "kinds": dict(sorted(kinds.items())),
        "variants": dict(sorted(variants.items())),
        "draws": draws,
        "games_with_tied_sides": shared,
    }


def run_study(
    population: Sequence[SimPlayer],
    records: Sequence[dict],
    holdout: float = HOLDOUT,
    corrected: Callable | None = None,
) -> dict:
    """Tune on the games before the held-out part, then score every model on the held-out games."""
    tuned = tune(population, records, holdout)
    raters = default_raters(corrected, tuned["beta_scales"], tuned["elo_k"])
    results = evaluate(population, records, raters, holdout)
    return {
        "summary": summarize_records(records),
        "tuned": {"beta_scales": tuned["beta_scales"], "elo_k": tuned["elo_k"]},
        "validation": tuned["validation"],
        "results": results,
        "winner": winner(results),
        "ties": tie_findings(),
    }


# --------------------------------------------------------------- farming


# (label, games, seconds between games, second accounts the farmer rotates through)
FARMING_SCENARIOS = (
    ("8 games in 3 minutes (issue 16's reproduction)", 8, 20.0, 1),
    ("100 games in a day", 100, 864.0, 1),
    ("100 games a day for 30 days", 3000, 864.0, 1),
    ("100 games in a day, 5 second accounts in turn", 100, 864.0, 5),
)


def farming_gain(games: int, seconds_apart: float, accounts: int = 1, *, repeat_rule: bool = True) -> dict:
    """One person farms with second accounts that lose every game (two-player games,
    one every `seconds_apart` s), rated by the site's own ledger (`ratings.ledger`).
    Returns the farmer's shown rating before and after, and how many games changed it."""
    from datetime import UTC, datetime, timedelta

    from ratings import model as rating_model
    from ratings.ledger import GameRow, Ledger, SeatRow

    ledger = Ledger(repeat_rule=repeat_rule)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    farmer, counted = 0, 0
    for n in range(games):
        second = 1 + n % accounts
        when = start + timedelta(seconds=n * seconds_apart)
        seats = [SeatRow(0, farmer, "", 0, 1), SeatRow(1, second, "", 1, 2)]
        counted += bool(ledger.apply(GameRow(n, when, seats)))
    first = rating_model.display_rating(rating_model.MU, rating_model.SIGMA)
    standing = ledger.players[farmer]
    shown = rating_model.display_rating(standing.mu, standing.sigma)
    return {"games": games, "counted": counted, "before": first, "after": shown, "gain": shown - first}


def farming_table(scenarios=FARMING_SCENARIOS) -> list[dict]:
    """Each scenario rated without the repeated-games rule and with it."""
    rows = []
    for label, games, seconds, accounts in scenarios:
        without = farming_gain(games, seconds, accounts, repeat_rule=False)
        with_rule = farming_gain(games, seconds, accounts, repeat_rule=True)
        rows.append(
            {
                "scenario": label,
                "games": games,
                "gain_without_rule": without["gain"],
                "gain_with_rule": with_rule["gain"],
                "counted_with_rule": with_rule["counted"],
            }
        )
    return rows


def format_farming(rows: Sequence[dict]) -> str:
    lines = [
        "| farming scenario | games | shown gain, every game in full | shown gain, repeated games rule"
        " | games that counted |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['scenario']} | {row['games']} | {row['gain_without_rule']:+d} | {row['gain_with_rule']:+d} |"
            f" {row['counted_with_rule']} |"
        )
    return "\n".join(lines)


# ================================================== the wider study (issue 19)
#
# Several independent clubs per world, every model tuned on a club of its own,
# metrics with 95 % intervals across the evaluation clubs. The worlds:
#
# - "plackett_luce": a player's strength is theta (hidden skill, sd 1) plus a
#   new form for every game, N(0, PL_FORM); the finishing order is drawn by
#   Plackett-Luce from exp(PL_SCALE * strength), the first place first (a team's
#   strength is its members' sum). The model family that favours is PlackettLuce
#   and, by its pairwise marginals, Bradley-Terry.
# - "thurstone": each player performs at theta + N(0, TH_NOISE), a team at its
#   members' sum, the order is by performance. That favours Thurstone-Mosteller
#   and TrueSkill. Between them the two favour no model by construction.
# - "engine": the engine-played games of the first study (mixed bots), when
#   asked for (slow: about 10 ms per game and process).
# - "site": the site's own recorded games, exported (`rating_study --export`):
#   no hidden skill, so only the predictive metrics.
#
# Both generative worlds have a luck level chosen so that the better player of a
# random pair finishes ahead about 65 % of the time, the engine study's figure.

PL_SCALE = 0.55
PL_FORM = 0.5
TH_NOISE = 2.0
GENERATIVE_WORLDS = ("plackett_luce", "thurstone")
NEWCOMER_GAMES = 60  # the convergence curve follows newcomers through this many games
CONVERGED_POINTS = 10.0  # "within 10 percentile points"
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
TWO_V_TWO_BAND = (0.08, 0.14)  # "pairs shown about 10-12 %": the band around it, wide enough to hold a sample
SMOOTHING = 5  # the newcomers' error curve is a running mean over this many games


@dataclass
class Club:
    """One club's games in order: (variant, kind, sides, ranks); `theta` the hidden skills (empty: unknown)."""

    world: str
    seed: int
    games: list
    theta: dict = field(default_factory=dict)
    newcomers: frozenset = frozenset()


def _theta(skill: float) -> float:
    """The evenly spread skill 0..1 as a standardised strength (sd 1)."""
    return (skill - 0.5) * math.sqrt(12.0)


def generate_club(world: str, players: int, games: int, seed: int) -> Club:
    """A club of `players` of the first study's population (activity, late joiners, tables), whose
    results are drawn by `world` ("plackett_luce" or "thurstone")."""
    if world not in GENERATIVE_WORLDS:
        raise ValueError(f"unknown world {world!r}; one of {', '.join(GENERATIVE_WORLDS)}")
    population = make_population(players, seed, games)
    theta = {p.id: _theta(p.skill) for p in population}
    rng = random.Random(f"{world}-{seed}")
    played = []
    for plan in plan_games(population, games, seed):
        seats = plan["seats"]
        if plan["partners"]:
            sides = [[seats[0], seats[2]], [seats[1], seats[3]]]
        else:
            sides = [[pid] for pid in seats]
        if world == "thurstone":
            perf = [sum(theta[p] + rng.gauss(0.0, TH_NOISE) for p in side) for side in sides]
            order = sorted(range(len(sides)), key=lambda i: -perf[i])
        else:
            weight = [math.exp(PL_SCALE * sum(theta[p] + rng.gauss(0.0, PL_FORM) for p in side)) for side in sides]
            left, order = list(range(len(sides))), []
            while left:
                pick = rng.choices(left, [weight[i] for i in left])[0]
                order.append(pick)
                left.remove(pick)
        ranks = [0] * len(sides)
        for place, i in enumerate(order, 1):
            ranks[i] = place
        played.append((plan["variant"], plan["kind"], sides, ranks))
    newcomers = frozenset(p.id for p in population if p.joins > 0)
    return Club(world, seed, played, theta, newcomers)


def engine_club(players: int, games: int, seed: int, workers: int = 1, cache: str = "") -> Club:
    """A club whose games the engine plays (the first study's world), cached in `cache` if given."""
    import os

    if cache and os.path.exists(cache):
        population, records, _ = load_games(cache)
    else:
        population = make_population(players, seed, games)
        records = simulate(plan_games(population, games, seed), workers)
        if cache:
            save_games(cache, population, records, {"games": games, "players": players, "seed": seed})
    played = [(r["variant"], r["kind"], *sides_and_ranks(r)) for r in records]
    theta = {p.id: _theta(p.skill) for p in population}
    return Club("engine", seed, played, theta, frozenset(p.id for p in population if p.joins > 0))


def site_club(path: str) -> Club:
    """The site's own games from an export file (JSON lines: variant, kind, sides, ranks)."""
    played = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                played.append((row["variant"], row["kind"], row["sides"], row["ranks"]))
    return Club("site", 0, played)


# ------------------------------------------------------------ durak chances

_DURAK_Z = [-6.0 + 0.25 * k for k in range(49)]
_DURAK_W = [math.exp(-z * z / 2.0) for z in _DURAK_Z]
_DURAK_W_SUM = sum(_DURAK_W)
_SQRT2 = math.sqrt(2.0)


def durak_chances(means: Sequence[float], sds: Sequence[float]) -> list[float]:
    """Each side's chance of performing lowest, sides performing at N(mean, sd^2) (the site's
    Thurstonian form, `ratings.model.chances_durak`, on a coarser grid); they sum to 1."""
    n = len(means)
    if n == 2:
        p = 0.5 * math.erfc((means[0] - means[1]) / math.sqrt(sds[0] ** 2 + sds[1] ** 2) / _SQRT2)
        return [p, 1.0 - p]
    raw = []
    for i in range(n):
        m_i, s_i = means[i], sds[i]
        others = [(means[j], sds[j] * _SQRT2) for j in range(n) if j != i]
        total = 0.0
        for z, w in zip(_DURAK_Z, _DURAK_W):
            x = m_i + s_i * z
            above = w
            for m_j, s_j in others:
                above *= 0.5 * math.erfc((x - m_j) / s_j)
            total += above
        raw.append(total / _DURAK_W_SUM)
    whole = math.fsum(raw)
    return [r / whole for r in raw]


# ----------------------------------------------------------------- models
#
# Every model answers `sides(variant, sides)`: per side a mean and a variance of
# its skill on the model's own scale, plus `noise`, the performance sd on that
# scale that matches its own pairwise curve; its chance of being the durak is
# `durak_chances` with sd = sqrt(variance + k * (spread * noise)^2), the spread
# tuned per model on the tuning club. k is the side's number of players for the
# models whose team is the sum of its members (`per_player`: each partner brings
# his own luck, as in TrueSkill's own model and in the generative worlds), 1 for
# those whose team is its members' mean (Glicko-2, Elo). The shipped model answers
# `chances` itself: the site's own `ratings.model.chances_durak`.

LOGISTIC_TO_NORMAL = 1.702
SPREADS = (0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.7, 2.0, 2.5)


class WideOpenSkill:
    """An openskill model through the library (ties given as ties), beta and tau as given."""

    per_player = True

    def __init__(self, label: str, name: str, beta: float, tau: float):
        from openskill import models

        self.name = label
        self.model = getattr(models, name)(mu=25.0, sigma=25.0 / 3.0, beta=beta, tau=tau)
        self.logistic = "Thurstone" not in name
        self.two_beta_sq = 2.0 * beta * beta
        self.noise = beta * (LOGISTIC_TO_NORMAL if self.logistic else 1.0)
        self.ratings: dict = {}

    def _r(self, variant, pid):
        r = self.ratings.get((variant, pid))
        if r is None:
            r = self.ratings[(variant, pid)] = self.model.rating()
        return r

    def sides(self, variant, sides):
        out = []
        for side in sides:
            rs = [self._r(variant, p) for p in side]
            out.append((sum(r.mu for r in rs), sum(r.sigma * r.sigma for r in rs)))
        return out

    def p_pair(self, a, b):
        d = (a[0] - b[0]) / math.sqrt(a[1] + b[1] + self.two_beta_sq)
        return 1.0 / (1.0 + math.exp(-d)) if self.logistic else 0.5 * math.erfc(-d / _SQRT2)

    def update(self, variant, sides, ranks):
        teams = [[self._r(variant, p) for p in side] for side in sides]
        for side, team in zip(sides, self.model.rate(teams, ranks=list(ranks))):
            for pid, r in zip(side, team):
                self.ratings[(variant, pid)] = r

    def point(self, variant, pid):
        return self._r(variant, pid).mu


class PreviouslyShipped(WideOpenSkill):
    """What the site shipped before TrueSkill (issue 19's first change): BradleyTerryFull beta 12.5,
    the library's tau, CHANCE_SPREAD 1.2 and ONE performance noise per side whatever its size.
    (The generative worlds have no ties, so the library's own rate is the site's of then.)"""

    per_player = False
    fixed_spread = 1.2

    def __init__(self):
        super().__init__(
            "previously shipped: BradleyTerryFull beta 12.5 tau 0.0833, one noise per side",
            "BradleyTerryFull",
            12.5,
            OS_TAU,
        )


class ShippedRater:
    """The site's model exactly as shipped: `ratings.model.rate` (its TrueSkill, its tie
    correction, its parameters), its pairwise chance (`chance_ahead`) and its chance of being the
    durak (`chances_durak`, `CHANCE_SPREAD`, one noise per player).

    `per_side_spread`: instead the durak chance of before issue 19's fix (one noise per side,
    whatever its size) from the same ratings, with that spread (the study's "before" row)."""

    def __init__(self, per_side_spread: float | None = None):
        from ratings import model as site

        self.site = site
        self.per_side_spread = per_side_spread
        label = (
            f"shipped: {site.MODEL_NAME} beta {site.BETA:.3g} tau {site.TAU:.3g} (ratings.model)"
            if per_side_spread is None
            else f"shipped ratings, chance with one noise per side (before the fix), spread {per_side_spread:g}"
        )
        self.name = label
        self.noise = site.BETA
        self.per_player = per_side_spread is None
        self.fixed_spread = site.CHANCE_SPREAD if per_side_spread is None else per_side_spread
        self.plain: dict = {}
        self._teams: list = []

    def _teams_of(self, variant, sides):
        start = (self.site.MU, self.site.SIGMA)
        return [[self.plain.get((variant, p), start) for p in side] for side in sides]

    def sides(self, variant, sides):
        self._teams = self._teams_of(variant, sides)
        return [(sum(mu for mu, _ in team), sum(s * s for _, s in team), team) for team in self._teams]

    def chances(self, stats, noise):
        """The site's own chance of being the durak (`noise` is ignored: the site's spread is its own),
        or the per-side formula of before the fix for the "before" row."""
        if self.per_side_spread is None:
            return self.site.chances_durak([team for _, _, team in stats])
        sd = self.per_side_spread * self.site.BETA
        return durak_chances([m for m, _, _ in stats], [math.sqrt(v + sd * sd) for _, v, _ in stats])

    def p_pair(self, a, b):
        return self.site.chance_ahead(a[2], b[2])

    def update(self, variant, sides, ranks):
        teams = self._teams_of(variant, sides)
        for side, team in zip(sides, self.site.rate(teams, list(ranks))):
            for pid, r in zip(side, team):
                self.plain[(variant, pid)] = r

    def point(self, variant, pid):
        return self.plain.get((variant, pid), (self.site.MU, self.site.SIGMA))[0]


class NativeTiesRater(ShippedRater):
    """The shipped model (its beta and tau, its chances) with ties given to the package as draws
    instead of averaged over the ways of breaking them. A draw needs a draw margin (with the site's
    draw probability 0 the package's draws are degenerate), so every game is rated by the package
    with `draw_probability` (0.02, the study's TrueSkill family's). Compared by `tie_treatments`."""

    def __init__(self, draw_probability: float = 0.02):
        import trueskill

        super().__init__()
        self.name = (
            f"{self.site.MODEL_NAME} as shipped, ties as the package's draws (draw probability {draw_probability:g})"
        )
        self.env = trueskill.TrueSkill(
            mu=self.site.MU,
            sigma=self.site.SIGMA,
            beta=self.site.BETA,
            tau=self.site.TAU,
            draw_probability=draw_probability,
        )

    def update(self, variant, sides, ranks):
        teams = self._teams_of(variant, sides)
        rated = self.env.rate(
            [tuple(self.env.create_rating(m, s) for m, s in team) for team in teams], ranks=list(ranks)
        )
        for side, team in zip(sides, rated):
            for pid, r in zip(side, team):
                self.plain[(variant, pid)] = (r.mu, r.sigma)


def tie_treatments(clubs: Sequence[Club], holdout: float = HOLDOUT) -> dict:
    """The site's tie treatment (averaged over the ways of breaking a tie) against the package's own
    draws, on clubs that have ties (the engine's games): every metric per club, and the paired
    difference (native minus averaged) of the durak and pairwise log-loss across the clubs."""
    rows: dict = {"averaged": [], "native": []}
    for club in clubs:
        rows["averaged"].append(score_club(club, ShippedRater(), ShippedRater().fixed_spread, holdout))
        rows["native"].append(score_club(club, NativeTiesRater(), ShippedRater().fixed_spread, holdout))
    ties = [sum(len(set(ranks)) < len(ranks) for _, _, _, ranks in club.games) for club in clubs]
    diff = {
        metric: mean_ci([getattr(n, metric) - getattr(a, metric) for a, n in zip(rows["averaged"], rows["native"])])
        for metric in ("durak_log_loss", "pair_log_loss")
    }
    return {
        "rows": rows,
        "games_with_ties": ties,
        "games": [len(c.games) for c in clubs],
        "native_minus_averaged": diff,
    }


class TrueSkillRater:
    """The `trueskill` package (Herbrich et al.'s factor graph), beta and tau as given, ties given
    to it as ties (draw probability 0.02, the Durak draw rate of the engine study's games)."""

    per_player = True

    def __init__(self, beta: float, tau: float, draw_probability: float = 0.02):
        import trueskill

        self.name = f"TrueSkill beta {beta:.3g} tau {tau:.3g}" + (
            "" if draw_probability == 0.02 else f" draw probability {draw_probability:g}"
        )
        self.env = trueskill.TrueSkill(mu=25.0, sigma=25.0 / 3.0, beta=beta, tau=tau, draw_probability=draw_probability)
        self.beta = beta
        self.noise = beta
        self.ratings: dict = {}

    def _r(self, variant, pid):
        r = self.ratings.get((variant, pid))
        if r is None:
            r = self.ratings[(variant, pid)] = self.env.create_rating()
        return r

    def sides(self, variant, sides):
        out = []
        for side in sides:
            rs = [self._r(variant, p) for p in side]
            out.append((sum(r.mu for r in rs), sum(r.sigma**2 for r in rs), len(rs)))
        return out

    def p_pair(self, a, b):
        return 0.5 * math.erfc(-(a[0] - b[0]) / math.sqrt(a[1] + b[1] + (a[2] + b[2]) * self.beta**2) / _SQRT2)

    def update(self, variant, sides, ranks):
        teams = [[self._r(variant, p) for p in side] for side in sides]
        for side, team in zip(sides, self.env.rate(teams, ranks=[r - 1 for r in ranks])):
            for pid, r in zip(side, team):
                self.ratings[(variant, pid)] = r

    def point(self, variant, pid):
        return self._r(variant, pid).mu


class Glicko2Rater:
    """Glicko-2 (bench.glicko2) over pairwise results: a game is one rating period for each
    player, one result per opponent on another side; `weight` the share of a game each counts."""

    def __init__(self, tau: float, weight: float):
        from bench import glicko2

        self.g2 = glicko2
        self.name = f"Glicko-2 pairwise tau {tau:g} weight {weight:g}"
        self.tau, self.weight = tau, weight
        self.noise = LOGISTIC_TO_NORMAL / _SQRT2
        self.ratings: dict = {}

    def _r(self, variant, pid):
        return self.ratings.get((variant, pid)) or self.g2.Glicko2Rating()

    def sides(self, variant, sides):
        out = []
        for side in sides:
            rs = [self._r(variant, p) for p in side]
            out.append((sum(r.mu for r in rs) / len(rs), sum(r.phi**2 for r in rs) / len(rs)))
        return out

    def p_pair(self, a, b):
        return 1.0 / (1.0 + math.exp(-self.g2.g(math.sqrt(a[1] + b[1])) * (a[0] - b[0])))

    def update(self, variant, sides, ranks):
        before = {p: self._r(variant, p) for side in sides for p in side}
        for i, side in enumerate(sides):
            for p in side:
                results = []
                for j, other in enumerate(sides):
                    if j != i:
                        score = 1.0 if ranks[i] < ranks[j] else 0.0 if ranks[i] > ranks[j] else 0.5
                        results += [(before[q], score) for q in other]
                self.ratings[(variant, p)] = self.g2.rate(before[p], results, self.tau, self.weight)

    def point(self, variant, pid):
        return self._r(variant, pid).rating


class WideElo(EloRater):
    """Pairwise Elo (`EloRater`) in the wider study's terms."""

    def __init__(self, k: float):
        super().__init__(f"Elo pairwise K={k:g}", k)
        self.noise = 400.0 / math.log(10.0) * LOGISTIC_TO_NORMAL / _SQRT2

    def sides(self, variant, sides):
        return [(self._mean(variant, side), 0.0) for side in sides]

    def p_pair(self, a, b):
        return self.expected(a[0], b[0])

    def point(self, variant, pid):
        return self.skill(variant, pid)


class WideCoin:
    name = "Coin (no model)"
    noise = 1.0
    fixed_spread = 1.0

    def sides(self, variant, sides):
        return [(0.0, 0.0) for _ in sides]

    def p_pair(self, a, b):
        return 0.5

    def update(self, variant, sides, ranks):
        pass

    def point(self, variant, pid):
        return 0.0


class OracleRater(WideCoin):
    """Knows the hidden skills and the Thurstonian world's noise: the best any model can do there."""

    name = "Oracle (knows the skills; thurstone world only)"

    def __init__(self, theta: dict):
        self.theta = theta

    def sides(self, variant, sides):
        return [(sum(self.theta[p] for p in side), len(side) * TH_NOISE**2) for side in sides]

    def p_pair(self, a, b):
        return 0.5 * math.erfc(-(a[0] - b[0]) / math.sqrt(a[1] + b[1]) / _SQRT2)

    fixed_spread = 0.0

    def point(self, variant, pid):
        return self.theta[pid]


# (label, factory(params), parameter grid) of every compared family; the grids are what tuning tries.
OS_BETA = 25.0 / 6.0
OS_TAU = 25.0 / 300.0
# openskill's four models the issue names, and ThurstoneMostellerPart: the neighbours-only
# Thurstonian model, the library's nearest relative of TrueSkill's chain of neighbours.
OPENSKILL_MODELS = (
    "PlackettLuce",
    "BradleyTerryFull",
    "BradleyTerryPart",
    "ThurstoneMostellerFull",
    "ThurstoneMostellerPart",
)


def model_families(quick: bool = False) -> list[tuple[str, Callable, list[dict]]]:
    betas = (1.5, 3.0, 6.0) if quick else (1.5, 2.0, 3.0, 4.0, 6.0)
    taus = (0.0, 1.0)
    families = []
    for name in OPENSKILL_MODELS:
        grid = [{"beta": OS_BETA * b, "tau": OS_TAU * t} for b in betas for t in taus]
        families.append(
            (
                name,
                lambda p, name=name: WideOpenSkill(f"{name} beta {p['beta']:.3g} tau {p['tau']:.3g}", name, **p),
                grid,
            )
        )
    ts_betas = (1.5, 3.0, 6.0) if quick else (1.0, 1.5, 2.0, 3.0, 4.0)
    families.append(
        (
            "TrueSkill",
            lambda p: TrueSkillRater(**p),
            [{"beta": OS_BETA * b, "tau": OS_TAU * t} for b in ts_betas for t in taus],
        )
    )
    g_taus = (0.2, 0.5) if quick else (0.2, 0.5, 1.0)
    families.append(
        ("Glicko-2", lambda p: Glicko2Rater(**p), [{"tau": t, "weight": w} for t in g_taus for w in (1.0, 0.5, 0.25)])
    )
    families.append(("Elo", lambda p: WideElo(**p), [{"k": k} for k in ((4.0, 8.0, 16.0) if quick else ELO_K_GRID)]))
    return families


# ---------------------------------------------------------------- scoring


@dataclass
class ClubScore:
    """One model on one club's held-out games."""

    durak_log_loss: float
    durak_accuracy: float
    pair_log_loss: float
    spearman: float
    newcomer_error_10: float  # mean percentile error of newcomers after their 10th game
    games_to_10_points: float  # games until the newcomers' mean percentile error is at most 10 points
    reliability: list  # per decile of shown durak chance: [count, sum of chances, durak count]
    two_v_two: list  # 2v2 sides shown a chance inside TWO_V_TWO_BAND: [count, sum of chances, lost]
    seconds: float
    held_out_games: int
    pairs_reliability: list = field(default_factory=list)  # the same per decile, 2v2 sides only


def score_club(club: Club, rater, spread: float, holdout: float = HOLDOUT, keep_sides: bool = False):
    """Rate the club's games in order; predict each held-out game before it is rated.
    With `keep_sides` (tuning) also return every held-out game's side statistics and outcome, for
    tuning the spread, and leave the newcomers' curve out (it is not a tuning criterion)."""
    games = club.games
    first = len(games) - math.ceil(len(games) * holdout)
    noise = getattr(rater, "noise", 1.0) * spread
    durak_loss = durak_hits = pair_loss = 0.0
    pairs = tested = 0
    reliability = [[0, 0.0, 0.0] for _ in range(10)]
    pairs_reliability = [[0, 0.0, 0.0] for _ in range(10)]
    band = [0, 0.0, 0.0]
    kept = []
    track = bool(club.theta) and bool(club.newcomers) and not keep_sides
    played: dict = defaultdict(int)
    present: dict = defaultdict(set)
    errors: dict[int, list[float]] = defaultdict(list)
    started = time.perf_counter()
    for index, (variant, kind, sides, ranks) in enumerate(games):
        if index >= first:
            stats = rater.sides(variant, sides)
            worst = max(ranks)
            losers = [i for i, r in enumerate(ranks) if r == worst]
            if len(losers) < len(sides):  # a draw has no durak: nothing to predict
                tested += 1
                chances = model_chances(rater, stats, sides, noise)
                share = 1.0 / len(losers)
                durak_loss -= sum(share * math.log(max(chances[i], _P_FLOOR)) for i in losers)
                top = max(chances)
                favourites = [i for i, c in enumerate(chances) if c == top]
                durak_hits += sum(share for i in losers if i in favourites) / len(favourites)
                for i, c in enumerate(chances):
                    lost = share if i in losers else 0.0
                    cell = reliability[min(int(c * 10), 9)]
                    cell[0] += 1
                    cell[1] += c
                    cell[2] += lost
                    if kind == "2v2":
                        cell = pairs_reliability[min(int(c * 10), 9)]
                        cell[0] += 1
                        cell[1] += c
                        cell[2] += lost
                    if kind == "2v2" and TWO_V_TWO_BAND[0] <= c <= TWO_V_TWO_BAND[1]:
                        band[0] += 1
                        band[1] += c
                        band[2] += lost
                if keep_sides:
                    kept.append((stats, losers, side_weights(rater, sides)))
            for i, j in itertools.combinations(range(len(sides)), 2):
                p = min(max(rater.p_pair(stats[i], stats[j]), _P_FLOOR), 1.0 - _P_FLOOR)
                outcome = 1.0 if ranks[i] < ranks[j] else 0.0 if ranks[i] > ranks[j] else 0.5
                pair_loss -= outcome * math.log(p) + (1.0 - outcome) * math.log(1.0 - p)
                pairs += 1
        rater.update(variant, sides, ranks)
        if track:
            for side in sides:
                for pid in side:
                    present[variant].add(pid)
                    played[(variant, pid)] += 1
            for side in sides:
                for pid in side:
                    n = played[(variant, pid)]
                    if pid in club.newcomers and n <= NEWCOMER_GAMES:
                        errors[n].append(_percentile_error(club.theta, rater, variant, present[variant], pid))
    seconds = time.perf_counter() - started
    raw = [sum(errors[n]) / len(errors[n]) if errors[n] else float("nan") for n in range(1, NEWCOMER_GAMES + 1)]
    half = SMOOTHING // 2
    curve = []
    for k in range(len(raw)):
        window = [e for e in raw[max(0, k - half) : k + half + 1] if not math.isnan(e)]
        curve.append(sum(window) / len(window) if window else float("nan"))
    converged = next((n for n, e in enumerate(curve, 1) if e <= CONVERGED_POINTS), float(NEWCOMER_GAMES + 1))
    result = ClubScore(
        durak_log_loss=durak_loss / tested if tested else float("nan"),
        durak_accuracy=durak_hits / tested if tested else float("nan"),
        pair_log_loss=pair_loss / pairs if pairs else float("nan"),
        spearman=_club_spearman(club, rater) if club.theta else float("nan"),
        newcomer_error_10=curve[9] if track and len(curve) >= 10 else float("nan"),
        games_to_10_points=converged if track else float("nan"),
        reliability=reliability,
        two_v_two=band,
        seconds=seconds,
        held_out_games=tested,
        pairs_reliability=pairs_reliability,
    )
    return (result, kept) if keep_sides else result


def _percentile_error(theta, rater, variant, present, pid) -> float:
    """|the player's percentile among the variant's players by the model - by the hidden skill|, in points."""
    others = [p for p in present if p != pid]
    if not others:
        return 0.0
    mine, true = rater.point(variant, pid), theta[pid]
    below_model = sum(
        1.0 if rater.point(variant, p) < mine else 0.5 if rater.point(variant, p) == mine else 0.0 for p in others
    )
    below_true = sum(1.0 if theta[p] < true else 0.5 if theta[p] == true else 0.0 for p in others)
    return 100.0 * abs(below_model - below_true) / len(others)


def _club_spearman(club: Club, rater) -> float:
    seen: dict = defaultdict(set)
    for variant, _, sides, _ in club.games:
        seen[variant].update(p for side in sides for p in side)
    rhos = []
    for variant, players in seen.items():
        ids = sorted(players)
        if len(ids) > 2:
            rho = spearman([club.theta[p] for p in ids], [rater.point(variant, p) for p in ids])
            if not math.isnan(rho):
                rhos.append(rho)
    return sum(rhos) / len(rhos) if rhos else float("nan")


def side_weights(rater, sides) -> list[int]:
    """How many performance noises each side has: one per player (`per_player` models) or one."""
    return [len(side) for side in sides] if getattr(rater, "per_player", False) else [1] * len(sides)


def model_chances(rater, stats, sides, noise: float) -> list[float]:
    """Each side's chance of being the durak: the rater's own (`chances`, the shipped model's
    `ratings.model.chances_durak`) or the generic normal form with `noise` per player or per side."""
    own = getattr(rater, "chances", None)
    if own is not None:
        return own(stats, noise)
    weights = side_weights(rater, sides)
    return durak_chances([s[0] for s in stats], [math.sqrt(s[1] + k * noise * noise) for s, k in zip(stats, weights)])


def durak_loss_of(kept, noise: float) -> float:
    """The durak log-loss of kept held-out sides (`score_club(..., keep_sides=True)`) at `noise`."""
    total = 0.0
    for stats, losers, weights in kept:
        chances = durak_chances(
            [s[0] for s in stats], [math.sqrt(s[1] + k * noise * noise) for s, k in zip(stats, weights)]
        )
        total -= sum(math.log(max(chances[i], _P_FLOOR)) for i in losers) / len(losers)
    return total / len(kept) if kept else float("nan")


def as_per_side(kept) -> list:
    """The same kept sides with one noise per side (the chance of before issue 19's fix)."""
    return [(stats, losers, [1] * len(weights)) for stats, losers, weights in kept]


def tune_family(club: Club, factory: Callable, grid: list[dict], holdout: float = HOLDOUT) -> dict:
    """The parameters and the chance spread with the lowest durak log-loss on the tuning club's held-out games:
    each point of the grid at spread 1.4, then the spread of the best one."""
    best = None
    for params in grid:
        rater = factory(params)
        score, kept = score_club(club, rater, 1.4, holdout, keep_sides=True)
        if best is None or score.durak_log_loss < best[0]:
            best = (score.durak_log_loss, params, kept, rater.noise)
    _, params, kept, noise = best
    spread = min(SPREADS, key=lambda s: durak_loss_of(kept, noise * s))
    return {"params": params, "spread": spread}


def shipped_spreads(club: Club, holdout: float = HOLDOUT) -> dict:
    """The chance spread the shipped ratings would want on `club` (its held-out games, as tuning):
    with one performance noise per player (the site's formula: compare with CHANCE_SPREAD) and with
    one noise per side (the formula before issue 19's fix), and the durak log-loss at each spread."""
    from ratings import model as site

    _, kept = score_club(club, ShippedRater(), site.CHANCE_SPREAD, holdout, keep_sides=True)
    per_player = {s: durak_loss_of(kept, site.BETA * s) for s in SPREADS}
    per_side = {s: durak_loss_of(as_per_side(kept), site.BETA * s) for s in SPREADS}
    return {
        "per_player": min(per_player, key=per_player.get),
        "per_side": min(per_side, key=per_side.get),
        "loss_per_player": per_player,
        "loss_per_side": per_side,
    }


def _site_losses(args) -> dict:
    """One world's tuning club: {(beta, tau, draw probability): {spread: durak log-loss}}."""
    world, players, games, seed, grid, holdout = args
    club = generate_club(world, players, games, seed)
    out = {}
    for beta, tau, draw in grid:
        _, kept = score_club(club, TrueSkillRater(beta, tau, draw_probability=draw), 1.0, holdout, keep_sides=True)
        out[(beta, tau, draw)] = {s: durak_loss_of(kept, beta * s) for s in SPREADS}
    return out


def tune_site(
    worlds: Sequence[str] = GENERATIVE_WORLDS,
    players: int = 100,
    games: int = 3000,
    seed: int = 1,
    betas: Sequence[float] = (6.25, 8.33, 10.4, 12.5, 14.6, 16.7, 20.8, 25.0),
    taus: Sequence[float] = (0.0, OS_TAU),
    draw_probabilities: Sequence[float] = (0.0, 0.02),
    holdout: float = HOLDOUT,
    workers: int = 1,
) -> dict:
    """The site's TrueSkill parameters chosen on the tuning clubs of every generative world at once:
    for each beta, tau and draw probability, the package (on these worlds' games, which have no
    ties, exactly the site's `ratings.model` path: there the draw probability only sets the margin
    of a win), each world's durak log-loss at every chance spread (one noise per player); the
    parameters and the ONE spread with the lowest mean over the worlds win (`spread`, and each
    world's own best spread beside it). `workers` worlds at a time, each in its own process."""
    grid = list(itertools.product(betas, taus, draw_probabilities))
    jobs = [(world, players, games, seed, grid, holdout) for world in worlds]
    if workers > 1 and len(jobs) > 1:
        with multiprocessing.get_context("fork").Pool(min(workers, len(jobs))) as pool:
            done = pool.map(_site_losses, jobs)
    else:
        done = [_site_losses(job) for job in jobs]
    losses = dict(zip(worlds, done, strict=True))
    rows = []
    for beta, tau, draw in grid:
        row = {"beta": beta, "tau": tau, "draw_probability": draw, "worlds": {}}
        for world in worlds:
            mine = losses[world][(beta, tau, draw)]
            spread = min(mine, key=mine.get)
            row["worlds"][world] = {"spread": spread, "durak_log_loss": mine[spread]}
        mean = {s: sum(losses[w][(beta, tau, draw)][s] for w in worlds) / len(worlds) for s in SPREADS}
        row["spread"] = min(mean, key=mean.get)
        row["mean"] = mean[row["spread"]]
        rows.append(row)
    best = min(rows, key=lambda r: r["mean"])
    return {"rows": rows, "best": best}


def sigma_after_games(
    world: str = "thurstone",
    players: int = 200,
    games: int = 20_000,
    seed: int = 1,
    marks: Sequence[int] = (5, 10, 15, 20, 30, 50, 100, 200, 400),
) -> dict:
    """How sigma falls: a generated club rated through the site's own `ratings.model.rate`; for each
    mark n, the median and the 90th percentile of sigma after a player's n-th game of a variant, and
    how many of a variant's players got that far (`SETTLED_SIGMA`, `PROVISIONAL_SIGMA`)."""
    from ratings import model as site

    club = generate_club(world, players, games, seed)
    rating: dict = {}
    played: dict = defaultdict(int)
    after: dict = defaultdict(list)
    wanted = set(marks)
    start = (site.MU, site.SIGMA)
    for variant, _, sides, ranks in club.games:
        teams = [[rating.get((variant, p), start) for p in side] for side in sides]
        for side, team in zip(sides, site.rate(teams, list(ranks))):
            for pid, new in zip(side, team):
                rating[(variant, pid)] = new
                played[(variant, pid)] += 1
                if played[(variant, pid)] in wanted:
                    after[played[(variant, pid)]].append(new[1])
    out = {}
    for n in marks:
        values = sorted(after[n])
        if values:
            out[n] = {
                "median": values[len(values) // 2],
                "p90": values[min(len(values) - 1, int(0.9 * len(values)))],
                "players": len(values),
            }
    return out


ESTABLISHED_KINDS = ("6", "4", "3", "2", "partners", "pair", "2, winning every game")


def games_until_established(kind: str, limit: int = 1000) -> int:
    """Games until a newcomer's sigma is down to `ratings.model.PROVISIONAL_SIGMA`, rated by the site:
    "2".."6": equal newcomers at one table taking every place in turn; "partners": the same two pairs
    of newcomers, the pairs winning in turn (a player's own rating); "pair": the pair's own rating in
    the same games (a one-to-one game of two pair ratings); "2, winning every game": a newcomer who
    beats a new newcomer every two-player game."""
    from ratings import model as site

    new = (site.MU, site.SIGMA)
    if kind in ("partners", "pair"):
        players = [new] * 4
        pairs = [new, new]
        for games in range(1, limit + 1):
            ranks = [1, 2] if games % 2 else [2, 1]
            (a, c), (b, d) = site.rate([[players[0], players[2]], [players[1], players[3]]], ranks)
            players = [a, b, c, d]
            pairs = [team[0] for team in site.rate([[pairs[0]], [pairs[1]]], ranks)]
            if not site.is_provisional((players[0] if kind == "partners" else pairs[0])[1]):
                return games
        return limit
    if kind == "2, winning every game":
        me = new
        for games in range(1, limit + 1):
            me = site.rate([[me], [new]], [1, 2])[0][0]
            if not site.is_provisional(me[1]):
                return games
        return limit
    seats = int(kind)
    table = [new] * seats
    for games in range(1, limit + 1):
        ranks = [(seat + games) % seats + 1 for seat in range(seats)]
        table = [team[0] for team in site.rate([[r] for r in table], ranks)]
        if not site.is_provisional(table[0][1]):
            return games
    return limit


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % interval (Student's t across clubs)."""
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return float("nan"), float("nan")
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, float("nan")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return mean, T95.get(len(values) - 1, 1.96) * sd / math.sqrt(len(values))


def study_world(
    world: str,
    tuning: Club | None,
    evaluation: Sequence[Club],
    quick: bool = False,
    holdout: float = HOLDOUT,
    tuned: dict | None = None,
    verbose: bool = False,
) -> dict:
    """One world: every family tuned on `tuning` (or `tuned` as given, when the world has no tuning
    club), then the shipped model, the tuned models, a coin (and, in the Thurstonian world, the oracle)
    scored on every evaluation club."""
    import sys

    def say(text):
        if verbose:
            print(f"{time.strftime('%H:%M:%S')} {world}: {text}", file=sys.stderr, flush=True)

    families = model_families(quick)
    if tuning is not None:
        tuned = {}
        for label, factory, grid in families:
            started = time.perf_counter()
            tuned[label] = tune_family(tuning, factory, grid, holdout)
            say(f"{label} tuned to {tuned[label]} in {time.perf_counter() - started:.1f}s")
        tuned["shipped"] = shipped_spreads(tuning, holdout)
        say(f"shipped spreads on the tuning club: {tuned['shipped']}")
    before = (tuned or {}).get("shipped", {}).get("per_side")
    rows: dict = {}
    for club in evaluation:
        shipped = ShippedRater()
        contenders = [(shipped, shipped.fixed_spread, "shipped")]
        if before is not None:
            per_side = ShippedRater(per_side_spread=before)
            contenders.append((per_side, per_side.fixed_spread, "shipped, per side"))
        previous = PreviouslyShipped()
        contenders.append((previous, previous.fixed_spread, "previously shipped"))
        for label, factory, _ in families:
            contenders.append((factory(tuned[label]["params"]), tuned[label]["spread"], label))
        contenders.append((WideCoin(), 1.0, "Coin"))
        if club.world == "thurstone":
            contenders.append((OracleRater(club.theta), 0.0, "Oracle"))
        for rater, spread, key in contenders:
            score = score_club(club, rater, spread, holdout)
            rows.setdefault(key, {"name": rater.name, "spread": spread, "clubs": []})["clubs"].append(score)
        say(f"club {club.seed} scored ({len(club.games)} games)")
    return {"tuned": tuned, "rows": rows, "clubs": len(evaluation), "games": [len(c.games) for c in evaluation]}


def _study_generated(args) -> dict:
    world, clubs, players, games, seed, quick, holdout, verbose = args
    tuning = generate_club(world, players, games, seed)
    evaluation = [generate_club(world, players, games, seed + k) for k in range(1, clubs + 1)]
    return study_world(world, tuning, evaluation, quick, holdout, verbose=verbose)


def wide_study(
    worlds: Sequence[str] = GENERATIVE_WORLDS,
    clubs: int = 4,
    players: int = 100,
    games: int = 3000,
    seed: int = 1,
    quick: bool = False,
    extra_clubs: dict | None = None,
    holdout: float = HOLDOUT,
    workers: int = 1,
    verbose: bool = False,
) -> dict:
    """Every generative world: a tuning club (`seed`) and `clubs` evaluation clubs (the next seeds),
    `workers` worlds at a time in their own processes. `extra_clubs`: world -> (tuning club or None,
    [evaluation clubs]) for the engine's and the site's games; a world without a tuning club of its
    own uses the parameters tuned for "thurstone" (or the first world)."""
    jobs = [(world, clubs, players, games, seed, quick, holdout, verbose) for world in worlds]
    if workers > 1 and len(jobs) > 1:
        with multiprocessing.get_context("fork").Pool(min(workers, len(jobs))) as pool:
            done = pool.map(_study_generated, jobs)
    else:
        done = [_study_generated(job) for job in jobs]
    out: dict = {"worlds": dict(zip(worlds, done, strict=True))}
    for world, (tuning, evaluation) in (extra_clubs or {}).items():
        borrowed = None
        if tuning is None:
            source = out["worlds"].get("thurstone") or next(iter(out["worlds"].values()))
            borrowed = source["tuned"]
        out["worlds"][world] = study_world(world, tuning, evaluation, quick, holdout, borrowed, verbose)
        out["worlds"][world]["tuned_on"] = "thurstone" if tuning is None else world
    return out


METRICS = (
    ("durak_log_loss", "durak log-loss"),
    ("durak_accuracy", "durak accuracy"),
    ("pair_log_loss", "pairwise log-loss"),
    ("reliability_gap", "reliability: worst decile gap"),
    ("spearman", "Spearman with skill"),
    ("newcomer_error_10", "newcomer error after 10 games (pct points)"),
    ("games_to_10_points", "games until within 10 points"),
)


def reliability_gap(score: ClubScore, minimum: int = 30) -> float:
    """The largest |durak frequency - mean shown chance| over the deciles with at least `minimum` sides."""
    gaps = [abs(lost - chances) / n for n, chances, lost in score.reliability if n >= minimum]
    return max(gaps) if gaps else float("nan")


def metric_values(row: dict, metric: str) -> list[float]:
    if metric == "reliability_gap":
        return [reliability_gap(s) for s in row["clubs"]]
    return [getattr(s, metric) for s in row["clubs"]]


def paired_vs(row: dict, base: dict, metric: str = "durak_log_loss") -> tuple[float, float]:
    """Mean and 95 % half-width of (row - base) across the same clubs."""
    return mean_ci([a - b for a, b in zip(metric_values(row, metric), metric_values(base, metric))])


def format_wide(outcome: dict) -> str:
    """One Markdown table per world: every model's metrics, mean ± 95 % interval across clubs."""
    parts = []
    for world, data in outcome["worlds"].items():
        rows = data["rows"]
        base = rows["shipped"]
        head = (
            "| Model | chance spread | "
            + " | ".join(label for _, label in METRICS)
            + " | durak log-loss minus shipped |"
        )
        lines = [
            f"World **{world}**, {data['clubs']} evaluation club(s), mean ± 95 % interval across clubs:",
            "",
            head,
            "|---|---:|" + "---:|" * (len(METRICS) + 1),
        ]
        for key, row in sorted(rows.items(), key=lambda kv: mean_ci(metric_values(kv[1], "durak_log_loss"))[0]):
            cells = []
            for metric, _ in METRICS:
                mean, half = mean_ci(metric_values(row, metric))
                digits = (
                    4
                    if "loss" in metric or "accuracy" in metric or "gap" in metric
                    else 3
                    if metric == "spearman"
                    else 1
                )
                cells.append(
                    "-"
                    if math.isnan(mean)
                    else f"{mean:.{digits}f}" + ("" if math.isnan(half) else f" ± {half:.{digits}f}")
                )
            diff, half = paired_vs(row, base)
            gap = "-" if key == "shipped" else f"{diff:+.4f}" + ("" if math.isnan(half) else f" ± {half:.4f}")
            lines.append(f"| {row['name']} | {row['spread']:g} | " + " | ".join(cells) + f" | {gap} |")
        band = []
        low, high = TWO_V_TWO_BAND
        for key in ("shipped", *[k for k in rows if k not in ("shipped", "Coin", "Oracle")]):
            n = sum(s.two_v_two[0] for s in rows[key]["clubs"])
            if n:
                shown = sum(s.two_v_two[1] for s in rows[key]["clubs"]) / n
                lost = sum(s.two_v_two[2] for s in rows[key]["clubs"]) / n
                half = 1.96 * math.sqrt(max(lost * (1 - lost), 1e-9) / n)
                band.append(
                    f"{rows[key]['name']}: {n} sides shown {100 * shown:.1f} %, "
                    f"lost {100 * lost:.1f} % (± {100 * half:.1f})"
                )
            else:
                band.append(
                    f"{rows[key]['name']}: no side shown {100 * TWO_V_TWO_BAND[0]:.0f}-{100 * TWO_V_TWO_BAND[1]:.0f} %"
                )
        lines += [
            "",
            f"2v2 sides shown a {100 * low:.0f}-{100 * high:.0f} % chance of losing, all clubs:",
            "",
        ]
        lines += [f"- {text}" for text in band]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def format_reliability(outcome: dict, keys: Sequence[str] = ("shipped",), field_name: str = "reliability") -> str:
    """Reliability by decile of shown durak chance (all evaluation clubs pooled): shown / observed (sides);
    `field_name="pairs_reliability"` for the 2v2 sides alone."""
    lines = [
        "| World | Model | " + " | ".join(f"{10 * d}-{10 * d + 10} %" for d in range(10)) + " |",
        "|---|---|" + "---:|" * 10,
    ]
    for world, data in outcome["worlds"].items():
        for key in keys:
            row = data["rows"].get(key)
            if row is None:
                continue
            cells = []
            cells_of = [getattr(s, field_name) for s in row["clubs"]]
            for d in range(10):
                n = sum(c[d][0] for c in cells_of if c)
                if n:
                    shown = sum(c[d][1] for c in cells_of if c) / n
                    lost = sum(c[d][2] for c in cells_of if c) / n
                    cells.append(f"{100 * shown:.0f}/{100 * lost:.0f} ({n})")
                else:
                    cells.append("-")
            lines.append(f"| {world} | {row['name']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def wide_winner(outcome: dict) -> dict:
    """The family with the lowest durak log-loss averaged over the generative worlds, and whether it
    beats the shipped model significantly (its 95 % interval below zero) in every one of them."""
    worlds = [w for w in outcome["worlds"] if w in GENERATIVE_WORLDS] or list(outcome["worlds"])
    # (the shipped ratings with the chance of before the fix are the same model: not a contender)
    keys = [k for k in outcome["worlds"][worlds[0]]["rows"] if k not in ("Coin", "Oracle", "shipped, per side")]

    def average(key):
        return sum(
            mean_ci(metric_values(outcome["worlds"][w]["rows"][key], "durak_log_loss"))[0] for w in worlds
        ) / len(worlds)

    best = min(keys, key=average)
    significant = best != "shipped" and all(
        sum(paired_vs(outcome["worlds"][w]["rows"][best], outcome["worlds"][w]["rows"]["shipped"])) < 0 for w in worlds
    )
    return {
        "key": best,
        "name": outcome["worlds"][worlds[0]]["rows"][best]["name"],
        "durak_log_loss": average(best),
        "beats_shipped": significant,
    }
