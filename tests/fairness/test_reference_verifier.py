"""docs/fairness.md: the reference verifier (standard library only) re-deals what the
engine deals with deal method 2, card for card, and rejects a tampered seed."""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import DEAL_METHOD, Game, Rules

VERIFIER = Path(__file__).resolve().parents[2] / "docs" / "fairness_verify.py"

# (rules, dealer): 2 to 6 players, the 24-, 36- and 52-card decks (T1), and deals that
# use the whole deck (R5: 4 x 6 = 24, 6 x 6 = 36), so trump comes from the last card dealt.
TABLES = [
    (Rules(players=2), 0),
    (Rules(players=3, deck=24), 2),
    (Rules(players=4, deck=24), 1),
    (Rules(variant="perevodnoy", players=4, partners=True), 3),
    (Rules(players=5, deck=52), 4),
    (Rules(players=6), 5),
    (Rules(players=6, deck=52, partners=True), 0),
    (Rules(variant="perevodnoy", players=2, deck=52, trump_six_swap=True), 1),
]
SEEDS = ["0" * 64, hashlib.sha256(b"table 7, game 3").hexdigest(), "a short seed"]


def verify(*args: str) -> tuple[int, dict]:
    """Run the verifier as anyone would: a separate interpreter with the standard library only
    (-I: no environment, no user site; -S: no site-packages)."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFIER), *args], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def sha256(seed: str) -> str:
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def dealt(game: Game) -> dict:
    state = json.loads(game.to_json())
    return {"hands": state["hands"], "stock": state["stock"], "trump_card": state["trump_card"]}


def test_the_current_deal_method_is_the_specified_one():
    assert DEAL_METHOD == 2


@pytest.mark.parametrize(
    "rules, dealer", TABLES, ids=lambda r: f"{r.players}p-d{r.deck}" if isinstance(r, Rules) else ""
)
def test_the_verifier_deals_what_the_engine_deals(rules, dealer):
    for seed in SEEDS:
        game = Game.new(rules, seed=seed, dealer=dealer, deal_method=2)
        status, deal = verify(
            "--seed", seed, "--seed-hash", sha256(seed), "--rules", json.dumps(rules.to_dict()), "--dealer", str(dealer)
        )
        assert status == 0 and deal["seed_hash_ok"] and deal["problems"] == []
        assert {key: deal[key] for key in ("hands", "stock", "trump_card")} == dealt(game)
        assert deal["trump"] == game.trump
        assert sum(map(len, deal["hands"])) + len(deal["stock"]) == rules.deck


def test_the_verifier_agrees_through_expect(tmp_path):
    rules, seed = Rules(players=4), SEEDS[1]
    expected = tmp_path / "deal.json"
    expected.write_text(json.dumps(dealt(Game.new(rules, seed=seed, dealer=2))))
    status, deal = verify(
        "--seed", seed, "--seed-hash", sha256(seed), "--players", "4", "--dealer", "2", "--expect", str(expected)
    )
    assert status == 0 and deal["problems"] == []


def test_a_tampered_seed_fails():
    """Another seed does not hash to the hash shown at the start, and deals other cards."""
    rules, seed = Rules(players=3), SEEDS[1]
    game = Game.new(rules, seed=seed, dealer=0)
    tampered = seed[:-1] + ("0" if seed[-1] != "0" else "1")
    status, deal = verify("--seed", tampered, "--seed-hash", sha256(seed), "--players", "3", "--dealer", "0")
    assert status == 1 and not deal["seed_hash_ok"]
    assert deal["hands"] != dealt(game)["hands"]


def test_a_deal_that_differs_from_the_expected_one_fails(tmp_path):
    rules, seed = Rules(players=2), SEEDS[0]
    claimed = dealt(Game.new(rules, seed=seed, dealer=0))
    claimed["hands"][0][0], claimed["hands"][1][0] = claimed["hands"][1][0], claimed["hands"][0][0]
    expected = tmp_path / "deal.json"
    expected.write_text(json.dumps(claimed))
    status, deal = verify("--seed", seed, "--seed-hash", sha256(seed), "--players", "2", "--expect", str(expected))
    assert status == 1 and deal["seed_hash_ok"]
    assert deal["problems"] == [f"hands differ: dealt {deal['hands']}, expected {claimed['hands']}"]


def test_the_verifier_needs_nothing_but_the_standard_library():
    tree = ast.parse(VERIFIER.read_text())
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported and imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_fairness_md_quotes_the_verifier_as_it_is():
    doc = (VERIFIER.parent / "fairness.md").read_text()
    assert "```python\n" + VERIFIER.read_text() + "```" in doc


def test_the_worked_example_of_fairness_md():
    """The example in docs/fairness.md: seed "durak", 2 players, 36 cards, dealer 0."""
    status, deal = verify("--seed", "durak", "--seed-hash", sha256("durak"), "--players", "2", "--dealer", "0")
    assert status == 0
    assert sha256("durak") == "b079099f43e888e356a2259dfd64e464035d174ec93844c2c7d8edb990a54004"
    assert deal["hands"] == [["9H", "10C", "6C", "KH", "AC", "8H"], ["8D", "KS", "10D", "JD", "QD", "AH"]]
    assert deal["trump_card"] == "9S"
    assert " ".join(deal["stock"]) == ("10H JS 6H 7D 10S JC 9D 7S 6D 6S AS 8S JH KD 9C 7H AD 7C 8C QC QS KC QH 9S")
    game = Game.new(Rules(players=2), seed="durak", dealer=0)
    assert dealt(game) == {key: deal[key] for key in ("hands", "stock", "trump_card")}
