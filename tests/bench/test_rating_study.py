"""Issue 19's wider rating study (bench/study.py, `rating_study --wide`), its Glicko-2 and its export."""

import json
import math
import random
from io import StringIO

import pytest
from django.core.management import call_command

from bench import glicko2, study


def test_issue19_glicko2_gives_the_worked_example_of_glickmans_paper():
    """Glickman, "Example of the Glicko-2 system": 1500 / RD 200 / volatility 0.06, tau 0.5,
    against 1400/30 (won), 1550/100 (lost), 1700/300 (lost): 1464.06 / 151.52 / 0.05999."""
    player = glicko2.Glicko2Rating(1500.0, 200.0, 0.06)
    results = [
        (glicko2.Glicko2Rating(1400.0, 30.0), 1.0),
        (glicko2.Glicko2Rating(1550.0, 100.0), 0.0),
        (glicko2.Glicko2Rating(1700.0, 300.0), 0.0),
    ]
    new = glicko2.rate(player, results, tau=0.5)
    # (The paper rounds its intermediate steps: unrounded, the rating is 1464.0507.)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)
    # The paper's figures on the internal scale: mu' = -0.2069, phi' = 0.8722.
    assert round(new.mu, 4) == -0.2069 and round(new.phi, 4) == 0.8722


def test_issue19_glicko2_without_games_only_grows_the_deviation():
    player = glicko2.Glicko2Rating(1600.0, 80.0, 0.06)
    new = glicko2.rate(player, [])
    assert new.rating == 1600.0 and new.volatility == 0.06
    assert new.rd == pytest.approx(glicko2.SCALE * math.sqrt((80.0 / glicko2.SCALE) ** 2 + 0.06**2))


def test_issue19_the_study_durak_chance_is_the_sites():
    """The shipped row is the site's own code path: its chance of being the durak is
    `ratings.model.chances_durak` itself, its pairwise chance `chance_ahead`, its rating
    `ratings.model.rate`; and the study's generic chance with one noise per player is the
    same normal form (on a coarser grid)."""
    from ratings import model

    rng = random.Random(4)
    rater = study.ShippedRater()
    assert rater.per_player and rater.fixed_spread == model.CHANCE_SPREAD and rater.noise == model.BETA
    for _ in range(200):
        teams = [
            [(rng.uniform(0, 50), rng.uniform(1, 8.3)) for _ in range(rng.choice((1, 2)))]
            for _ in range(rng.randint(2, 6))
        ]
        ids = [[10 * k + j for j in range(len(team))] for k, team in enumerate(teams)]
        rater.plain = {("podkidnoy", pid): r for side, team in zip(ids, teams) for pid, r in zip(side, team)}
        stats = rater.sides("podkidnoy", ids)
        assert study.model_chances(rater, stats, ids, 0.0) == model.chances_durak(teams)
        assert rater.p_pair(stats[0], stats[1]) == model.chance_ahead(teams[0], teams[1])
        means = [sum(mu for mu, _ in team) for team in teams]
        sds = [math.sqrt(sum(s * s for _, s in team) + len(team) * model.PERFORMANCE_SD**2) for team in teams]
        generic = study.durak_chances(means, sds)
        assert generic == pytest.approx(model.chances_durak(teams), abs=1e-6)
        assert math.isclose(sum(generic), 1.0)


def test_issue19_the_shipped_row_rates_through_the_sites_model():
    from ratings import model

    club = study.generate_club("thurstone", players=12, games=120, seed=7)
    rater = study.ShippedRater()
    plain: dict = {}
    start = (model.MU, model.SIGMA)
    for variant, _, sides, ranks in club.games:
        rater.update(variant, sides, ranks)
        teams = [[plain.get((variant, p), start) for p in side] for side in sides]
        for side, team in zip(sides, model.rate(teams, ranks), strict=True):
            for pid, new in zip(side, team, strict=True):
                plain[(variant, pid)] = new
    assert rater.plain == plain


def test_issue19_generated_worlds_reward_skill():
    """In both generative worlds the stronger half of the club finishes last less often."""
    for world in study.GENERATIVE_WORLDS:
        club = study.generate_club(world, players=20, games=600, seed=3)
        assert len(club.games) == 600
        median = sorted(club.theta.values())[10]
        strong = weak = 0
        for _, _, sides, ranks in club.games:
            for side, rank in zip(sides, ranks, strict=True):
                if rank == max(ranks) and len(side) == 1:
                    strong += club.theta[side[0]] >= median
                    weak += club.theta[side[0]] < median
        assert weak > 1.3 * strong, world


def test_issue19_the_wider_study_runs_tiny_and_its_table_has_every_model(tmp_path):
    out = StringIO()
    report = tmp_path / "wide.json"
    call_command(
        "rating_study",
        "--wide",
        "--clubs",
        "2",
        "--players",
        "10",
        "--games",
        "80",
        "--quick",
        "--out",
        str(report),
        stdout=out,
    )
    text = out.getvalue()
    families = [label for label, _, _ in study.model_families(quick=True)]
    assert {
        "PlackettLuce",
        "BradleyTerryFull",
        "BradleyTerryPart",
        "ThurstoneMostellerFull",
        "TrueSkill",
        "Glicko-2",
        "Elo",
    } <= set(families)
    for world in study.GENERATIVE_WORLDS:
        table = text.split(f"World **{world}**", 1)[1].split("World **", 1)[0]
        lines = table.split("| Model |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]  # the model rows of this world
        rows = [line for line in lines if line.startswith("| ")]
        assert len(rows) == len(lines)
        names = [row.split(" | ")[0][2:] for row in rows]
        assert any(name.startswith("shipped: TrueSkill") for name in names)
        assert any(name.startswith("previously shipped: BradleyTerryFull") for name in names)
        assert any(name.startswith("shipped ratings, chance with one noise per side") for name in names)
        for family in families:
            assert any(name.startswith(family) for name in names), (world, family)
        assert "Coin (no model)" in names
        assert ("Oracle (knows the skills; thurstone world only)" in names) == (world == "thurstone")
        for metric, label in study.METRICS:
            assert label in table.split("| Model |", 1)[1].splitlines()[0], metric
        # Two clubs: every model's durak log-loss has its 95 % interval.
        assert all(" ± " in row.split(" | ")[2] for row in rows)
    assert text.strip().splitlines()[-1].startswith("winner=")
    saved = json.loads(report.read_text())
    assert set(saved["worlds"]) == set(study.GENERATIVE_WORLDS)
    assert len(saved["worlds"]["thurstone"]["rows"]["shipped"]["clubs"]) == 2


@pytest.mark.django_db
def test_issue19_the_sites_games_are_exported_in_order_and_studied(tmp_path):
    from tests.ratings.helpers import finished_game, people

    anna, boris, vera = people("anna", "boris", "vera")
    for k in range(12):
        finished_game([(anna, 1), (boris, 2), (vera, 3)] if k % 2 else [(boris, 1), (anna, 2)])
    export = tmp_path / "site.jsonl"
    out = StringIO()
    call_command("rating_study", "--export", str(export), stdout=out)
    assert "exported 12 rated games" in out.getvalue() and "too few" in out.getvalue()
    rows = [json.loads(line) for line in export.read_text().splitlines()]
    assert rows[0] == {"variant": "podkidnoy", "kind": "2", "sides": [[boris.pk], [anna.pk]], "ranks": [1, 2]}
    assert rows[1]["sides"] == [[anna.pk], [boris.pk], [vera.pk]] and rows[1]["ranks"] == [1, 2, 3]
    out = StringIO()
    call_command(
        "rating_study",
        "--wide",
        "--clubs",
        "1",
        "--players",
        "8",
        "--games",
        "60",
        "--quick",
        "--worlds",
        "thurstone",
        "--site-games",
        str(export),
        stdout=out,
    )
    text = out.getvalue()
    assert "World **site**" in text and "site: 12 recorded games, parameters tuned on thurstone" in text


def test_issue19_the_tie_comparison_gives_ties_to_the_package_as_draws():
    import trueskill

    from ratings import model

    native, averaged = study.NativeTiesRater(), study.ShippedRater()
    for rater in (native, averaged):
        rater.update("podkidnoy", [[1], [2], [3]], [1, 1, 2])  # a shared first place
    env = trueskill.TrueSkill(mu=model.MU, sigma=model.SIGMA, beta=model.BETA, tau=model.TAU, draw_probability=0.02)
    (first,), _, _ = env.rate([(env.create_rating(),)] * 3, ranks=[1, 1, 2])
    assert native.plain[("podkidnoy", 1)] == (first.mu, first.sigma)
    start = (model.MU, model.SIGMA)
    assert averaged.plain[("podkidnoy", 1)] == model.rate([[start]] * 3, [1, 1, 2])[0][0]


def test_issue19_the_sites_parameters_are_tuned_on_every_world_at_once():
    outcome = study.tune_site(players=12, games=150, betas=(6.25, 12.5), taus=(0.0,), draw_probabilities=(0.0,))
    assert len(outcome["rows"]) == 2
    for row in outcome["rows"]:
        assert set(row["worlds"]) == set(study.GENERATIVE_WORLDS) and row["spread"] in study.SPREADS
        # the one spread for all is never better, in any world, than that world's own best
        assert row["mean"] >= sum(w["durak_log_loss"] for w in row["worlds"].values()) / 2 - 1e-12
    assert outcome["best"]["mean"] == min(row["mean"] for row in outcome["rows"])


def test_issue19_sigma_falls_with_games_in_a_simulated_club():
    curve = study.sigma_after_games(players=12, games=300, marks=(1, 5, 20))
    assert curve[1]["median"] > curve[5]["median"] > curve[20]["median"]
    assert all(c["median"] <= c["p90"] for c in curve.values())
