"""The rating study (docs/ratings.md): its simulation, its metrics and the ties of the models it compares."""

import gzip
import json
import math

import pytest
from django.core.management import call_command
from hypothesis import given
from hypothesis import strategies as st

from bench import study

# ------------------------------------------------------------------ metrics


class Scripted:
    """A rater whose chances are fixed in advance, one per pair of sides, in the order they are asked."""

    name = "scripted"

    def __init__(self, chances):
        self.chances = list(chances)

    def p_win(self, variant, side_a, side_b):
        return self.chances.pop(0)

    def update(self, variant, sides, ranks):
        pass

    def skill(self, variant, pid):
        return float(pid)

    shown = skill


def record(seats, places, partners=False, losers=None, variant="podkidnoy"):
    kind = "2v2" if partners else str(len(seats))
    if losers is None:
        worst = max(places)
        losers = [s for s, p in enumerate(places) if p == worst] if places.count(worst) == 1 else []
    return {"kind": kind, "variant": variant, "partners": partners, "seats": seats, "places": places, "losers": losers}


def test_metrics_of_three_games_computed_by_hand():
    population = [study.SimPlayer(i, i / 4, 1.0, 0) for i in range(5)]
    games = [
        record([0, 1], [2, 1]),  # player 1 beats player 0
        record([2, 3, 4], [1, 2, 2], losers=[3, 4]),  # 2 first, 3 and 4 share the last place
        record([0, 1, 2, 3], [1, 2, 1, 2], partners=True, losers=[1, 3]),  # team 0+2 beats 1+3
    ]
    # Game 1: P(0 beats 1) = 0.3, right (1 won).  Game 2: pairs (2,3) 0.9 right, (2,4) 0.4 wrong,
    # (3,4) 0.7 a tie.  Game 3: P(team 0+2 beats 1+3) = 0.5, half right.
    rater = Scripted([0.3, 0.9, 0.4, 0.7, 0.5])
    [result] = study.evaluate(population, games, [rater], holdout=1.0)
    assert result.pairs == 5
    assert result.decided == 4
    assert result.accuracy == pytest.approx((1 + 1 + 0 + 0.5) / 4)
    expected_loss = -(math.log(0.7) + math.log(0.9) + math.log(0.4) + 0.5 * math.log(0.7) + 0.5 * math.log(0.3))
    expected_loss -= math.log(0.5)
    assert result.log_loss == pytest.approx(expected_loss / 5)
    assert sum(result.game_losses) == pytest.approx(expected_loss)
    # Final "skill" is the player id: ranks agree perfectly with the hidden skill i / 4.
    assert result.spearman_skill == pytest.approx(1.0)


def test_only_the_held_out_games_are_predicted():
    population = [study.SimPlayer(i, 0.5, 1.0, 0) for i in range(2)]
    games = [record([0, 1], [1, 2]) for _ in range(8)]
    [result] = study.evaluate(population, games, [Scripted([0.8, 0.8])], holdout=0.25)
    assert result.pairs == 2
    assert result.log_loss == pytest.approx(-math.log(0.8))


def test_spearman_by_hand():
    assert study.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert study.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # Ranks (1, 2, 3) against (1.5, 1.5, 3): Pearson of the ranks is sqrt(3) / 2.
    assert study.spearman([1, 2, 3], [5, 5, 9]) == pytest.approx(math.sqrt(3) / 2)
    assert math.isnan(study.spearman([1, 2, 3], [7, 7, 7]))


def test_a_paired_difference_of_identical_models_is_zero():
    a = study.ModelResult("a", 0.6, 0.6, 4, 4, None, 0.5, 0.5, 0.0, game_losses=[1.0, 2.0, 1.5])
    diff, se = study.paired_difference(a, a)
    assert diff == 0.0 and se == 0.0


# ------------------------------------------------------ what a game means


def test_free_for_all_sides_are_seats_ranked_by_place_and_shared_places_tie():
    sides, ranks = study.sides_and_ranks(record([7, 3, 9], [2, 1, 2], losers=[]))
    assert sides == [[7], [3], [9]]
    assert ranks == [2, 1, 2]


def test_partners_are_one_side_with_the_team_result():
    # R2: seats 0+2 against 1+3; seat 1 is the durak, so its team is second whatever the places say.
    sides, ranks = study.sides_and_ranks(record([5, 6, 7, 8], [1, 4, 3, 2], partners=True, losers=[1, 3]))
    assert sides == [[5, 7], [6, 8]]
    assert ranks == [1, 2]
    _, draw_ranks = study.sides_and_ranks(record([5, 6, 7, 8], [1, 2, 3, 3], partners=True, losers=[]))
    assert draw_ranks == [1, 1]


# ------------------------------------------------------------- Elo baseline


def test_elo_win_between_equals_is_symmetric_and_a_tie_changes_nothing():
    elo = study.EloRater("elo", 32.0)
    elo.update("podkidnoy", [[1], [2]], [1, 2])
    assert elo.skill("podkidnoy", 1) == pytest.approx(1516.0)
    assert elo.skill("podkidnoy", 2) == pytest.approx(1484.0)
    assert elo.skill("perevodnoy", 1) == 1500.0  # the other variant is untouched
    elo.update("podkidnoy", [[3], [4]], [1, 1])
    assert elo.skill("podkidnoy", 3) == elo.skill("podkidnoy", 4) == 1500.0


def test_elo_tie_pulls_unequal_players_together_and_teammates_are_not_compared():
    elo = study.EloRater("elo", 32.0)
    elo.ratings[("podkidnoy", 1)] = 1700.0
    elo.update("podkidnoy", [[1], [2]], [1, 1])
    assert elo.skill("podkidnoy", 1) < 1700.0
    assert elo.skill("podkidnoy", 2) > 1500.0
    team = study.EloRater("elo", 32.0)
    team.update("podkidnoy", [[1, 2], [3, 4]], [1, 2])
    # Each winner met two losers: 2 x 16 points.
    assert team.skill("podkidnoy", 1) == team.skill("podkidnoy", 2) == pytest.approx(1532.0)


@given(
    ratings=st.lists(st.floats(1000, 2000), min_size=2, max_size=6),
    data=st.data(),
)
def test_elo_with_one_k_never_creates_or_destroys_points(ratings, data):
    ranks = data.draw(st.lists(st.integers(1, len(ratings)), min_size=len(ratings), max_size=len(ratings)))
    elo = study.EloRater("elo", 32.0)
    for pid, r in enumerate(ratings):
        elo.ratings[("podkidnoy", pid)] = r
    elo.update("podkidnoy", [[pid] for pid in range(len(ratings))], ranks)
    after = [elo.skill("podkidnoy", pid) for pid in range(len(ratings))]
    assert sum(after) == pytest.approx(sum(ratings))
    for pid, rank in enumerate(ranks):
        if all(rank < other for j, other in enumerate(ranks) if j != pid):
            assert after[pid] > ratings[pid]  # an outright winner always gains


# ------------------------------------------------------------ simulation


def test_a_stronger_simulated_player_wins_more_often():
    # Skill 1.0 always plays the heuristic bot's move, skill 0.0 a random one; the heuristic bot
    # beats the random one in about 98 % of two-player games. 300 games, alternating seats and
    # variants: fewer than 200 wins would be more than 10 standard deviations below that.
    plans = [
        {
            "kind": "2",
            "variant": study.VARIANTS[i % 2],
            "partners": False,
            "seats": [0, 1] if i % 4 < 2 else [1, 0],
            "skills": [1.0, 0.0] if i % 4 < 2 else [0.0, 1.0],
            "seed": 1000 + i,
            "dealer": i % 2,
        }
        for i in range(300)
    ]
    records = study.simulate(plans)
    strong_wins = sum(1 for r in records if r["losers"] and r["seats"][r["losers"][0]] == 1)
    assert strong_wins >= 200


def test_planned_games_are_repeatable_and_well_formed():
    population = study.make_population(12, seed=3, games=40)
    plans = study.plan_games(population, 40, seed=3)
    assert plans == study.plan_games(population, 40, seed=3)
    records = study.simulate(plans)
    assert records == study.simulate(plans)
    for r in records:
        n = len(r["seats"])
        assert 2 <= n <= 6 and len(set(r["seats"])) == n
        assert sorted(set(r["places"]))[0] == 1 and len(r["places"]) == n
        assert not r["partners"] or n == 4
    summary = study.summarize_records(records)
    assert summary["games"] == 40 and sum(summary["kinds"].values()) == 40


def test_a_player_sits_only_after_joining():
    population = study.make_population(40, seed=5, games=100)
    joins = {p.id: p.joins for p in population}
    for index, plan in enumerate(study.plan_games(population, 100, seed=5)):
        assert all(joins[pid] <= index for pid in plan["seats"])


def test_games_round_trip_through_the_cache(tmp_path):
    population = study.make_population(8, seed=1, games=6)
    records = study.simulate(study.plan_games(population, 6, seed=1))
    path = str(tmp_path / "games.json.gz")
    study.save_games(path, population, records, {"seed": 1})
    assert study.load_games(path) == (population, records, {"seed": 1})
    with gzip.open(path, "rt") as f:
        assert json.load(f)["meta"] == {"seed": 1}


# ------------------------------------------------------------------- ties


@pytest.mark.parametrize("name", study.MODEL_NAMES)
@pytest.mark.parametrize("ranks", [[1, 1], [1, 1, 1], [2, 1, 2], [1, 1, 2, 2]])
def test_equal_players_who_tie_get_identical_updates(name, ranks):
    model = study.openskill_model(name)
    new = model.rate([[model.rating()] for _ in ranks], ranks=ranks)
    for i, j in [(i, j) for i in range(len(ranks)) for j in range(len(ranks)) if ranks[i] == ranks[j]]:
        assert (new[i][0].mu, new[i][0].sigma) == pytest.approx((new[j][0].mu, new[j][0].sigma), abs=1e-12)
    if len(set(ranks)) == 1:
        assert all(team[0].mu == pytest.approx(model.mu) for team in new)  # an all-way tie moves no mu


@pytest.mark.parametrize("name", study.MODEL_NAMES)
def test_a_tie_does_not_depend_on_the_order_of_the_teams(name):
    model = study.openskill_model(name)
    strong, weak = (30.0, 4.0), (20.0, 6.0)
    forward = model.rate([[model.rating(*strong)], [model.rating(*weak)]], ranks=[1, 1])
    backward = model.rate([[model.rating(*weak)], [model.rating(*strong)]], ranks=[1, 1])
    assert forward[0][0].mu == pytest.approx(backward[1][0].mu)
    assert forward[1][0].mu == pytest.approx(backward[0][0].mu)
    assert forward[0][0].mu < strong[0] and forward[1][0].mu > weak[0]  # a tie pulls them together


def test_the_sites_tie_correction_gives_equal_tied_players_identical_ratings():
    model = study.openskill_model("PlackettLuce")
    new = study.corrected_rate(model, [[model.rating()] for _ in range(3)], [1, 1, 1])
    assert new[0][0].mu == new[1][0].mu == new[2][0].mu
    assert new[0][0].sigma == new[1][0].sigma == new[2][0].sigma


def test_order_checks_by_hand():
    assert study.order_kept([3.0, 1.0, 1.0, -1.0], [1, 2, 2, 3])
    assert not study.order_kept([1.0, 1.0, 1.5, -1.0], [1, 1, 2, 3])  # 2nd place above the tied winners
    assert not study.order_kept([3.0, 1.0, 1.1], [1, 2, 2])  # tied players left apart
    assert study.ties_equal([2.0, 5.0, 2.0], [1, 2, 1])


def test_tie_findings_cover_every_model_and_check():
    rows = study.tie_findings()
    assert [row["model"] for row in rows] == list(study.MODEL_NAMES)
    for row in rows:
        assert row["symmetric_1v1"] and row["symmetric_3way"] and row["symmetric_1v1_scores"]


# --------------------------------------------------------------- the command


def test_the_command_prints_the_table_and_a_last_line(tmp_path, capsys):
    cache = str(tmp_path / "games.json.gz")
    out = tmp_path / "study.json"
    call_command("rating_study", games=40, players=12, seed=2, cache=cache, out=str(out))
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("winner=")
    assert any(line.startswith("| PlackettLuce |") for line in lines)
    report = json.loads(out.read_text())
    assert report["summary"]["games"] == 40
    assert {r["name"] for r in report["results"]} >= {"PlackettLuce", "BradleyTerryFull", "ThurstoneMostellerFull"}
    # The second run evaluates the cached games without playing them again.
    call_command("rating_study", games=40, players=12, seed=2, cache=cache)
    assert f"games from {cache}" in capsys.readouterr().out
