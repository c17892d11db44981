"""Issue 19, "Tests": convergence on simulated games, rated by the site's own code
(`ratings.model.rate`). A Thurstonian club (the study's generative world in small): each
player has a fixed hidden skill, N(0, 1); in a game each performs at skill + N(0, LUCK^2)
and the places follow the performances. LUCK = 1.2 makes the better of two players finish
ahead about 70 % of the time, about the luck of Durak itself (docs/ratings.md).

What is checked: the club's ratings come to order the players by their hidden skill, more so
the more they play; and a newcomer who joins a settled club is placed nearer his true
percentile after 40 games than after 5, with his uncertainty shrinking game by game."""

from __future__ import annotations

import random
import statistics

from ratings import model

LUCK = 1.2
CLUB = 40


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    for rank, i in enumerate(order):
        out[i] = float(rank)
    return out


def spearman(a: list[float], b: list[float]) -> float:
    return statistics.correlation(ranks(a), ranks(b))


def play(rng: random.Random, skill: dict, ratings: dict, players: list) -> None:
    performance = {p: skill[p] + rng.gauss(0.0, LUCK) for p in players}
    order = sorted(players, key=performance.get, reverse=True)
    rated = model.rate([[ratings[p]] for p in order], list(range(1, len(order) + 1)))
    for p, (new,) in zip(order, rated, strict=True):
        ratings[p] = new


def settled_club(rng: random.Random, games: int, checkpoints=()) -> tuple[dict, dict, dict]:
    skill = {p: rng.gauss(0.0, 1.0) for p in range(CLUB)}
    ratings = dict.fromkeys(range(CLUB), (model.MU, model.SIGMA))
    seen = {}
    for game in range(1, games + 1):
        play(rng, skill, ratings, rng.sample(range(CLUB), rng.choice([2, 3, 4])))
        if game in checkpoints:
            players = list(range(CLUB))
            seen[game] = spearman([ratings[p][0] for p in players], [skill[p] for p in players])
    return skill, ratings, seen


def test_issue19_the_ratings_come_to_order_the_club_by_its_hidden_skills():
    # 600 games of 2-4 players: about 45 games each by the end, 4 after the first 50.
    _skill, _ratings, seen = settled_club(random.Random(19), 600, checkpoints=(50, 600))
    assert seen[600] > seen[50] + 0.1, seen
    assert seen[600] >= 0.8, seen


def test_issue19_a_newcomer_is_placed_nearer_his_true_percentile_the_more_he_plays():
    rng = random.Random(2019)
    skill, ratings, _ = settled_club(rng, 600)
    errors = {5: [], 40: []}
    sigmas = []
    for newcomer in range(12):
        me = f"newcomer {newcomer}"
        skill[me] = rng.gauss(0.0, 1.0)
        ratings[me] = (model.MU, model.SIGMA)
        mine = []
        for game in range(1, 41):
            play(rng, skill, ratings, [me, *rng.sample(range(CLUB), rng.choice([1, 2, 3]))])
            mine.append(ratings[me][1])
            if game in errors:
                true = sum(skill[p] < skill[me] for p in range(CLUB)) / CLUB
                shown = sum(model.display_rating(*ratings[p]) < model.display_rating(*ratings[me]) for p in range(CLUB))
                errors[game].append(abs(shown / CLUB - true) * 100)
        sigmas.append(mine)
        del skill[me], ratings[me]
    after_5, after_40 = statistics.mean(errors[5]), statistics.mean(errors[40])
    assert after_40 < after_5, errors
    assert after_40 <= 15, f"{after_40:.1f} percentile points off after 40 games"
    assert all(s[-1] < s[4] < model.SIGMA for s in sigmas), "the uncertainty shrinks game by game"
