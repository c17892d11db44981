"""docs/fairness.md: games dealt by the site verify with the reference verifier.

A table is opened and dealt through the site's own service, then the stored
game (its seed, hash, rules, dealer and deal method) is handed to the
standard-library verifier, whose deal must be the one the site played: the
stored position is reached by replaying the stored moves from it.
"""

from __future__ import annotations

import json

import pytest
from django.apps import apps

from games import engine
from games.services import tables

from .test_reference_verifier import verify

pytestmark = pytest.mark.django_db

TABLES = [
    engine.Rules(players=2),
    engine.Rules(players=3, deck=24),
    engine.Rules(variant="perevodnoy", players=4, partners=True),
    engine.Rules(players=6, deck=52),
]


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: f"{r.variant}-{r.players}p-d{r.deck}")
def test_a_game_dealt_by_the_site_verifies(rules):
    table = tables.do_create_table(rules=rules, bot_seats=dict.fromkeys(range(rules.players), "random"), start=True)
    game = apps.get_model("games", "Game").objects.filter(table_id=table.pk).order_by("-number").first()
    assert game is not None
    assert game.deal_method == engine.DEAL_METHOD == 2, "the site deals new games with the specified shuffle"

    status, deal = verify(
        "--seed",
        game.seed,
        "--seed-hash",
        game.seed_hash,
        "--rules",
        json.dumps(game.rules),
        "--dealer",
        str(game.dealer),
    )
    assert status == 0 and deal["seed_hash_ok"], deal["problems"]

    position = engine.Game.new(engine.Rules.from_dict(game.rules), seed=game.seed, dealer=game.dealer, deal_method=2)
    state = json.loads(position.to_json())
    assert (deal["hands"], deal["stock"], deal["trump_card"]) == (state["hands"], state["stock"], state["trump_card"])
    for seat, action in game.moves.order_by("number").values_list("seat", "action"):
        position.act(seat, action)
    assert position.to_json() == game.state_json, "the stored game is not the game of the verified deal"


def test_a_site_game_with_a_tampered_seed_does_not_verify():
    table = tables.do_create_table(rules=engine.Rules(players=2), bot_seats={0: "random", 1: "random"}, start=True)
    game = apps.get_model("games", "Game").objects.filter(table_id=table.pk).first()
    tampered = ("1" if game.seed[0] != "1" else "2") + game.seed[1:]
    status, deal = verify(
        "--seed", tampered, "--seed-hash", game.seed_hash, "--players", "2", "--dealer", str(game.dealer)
    )
    assert status == 1 and not deal["seed_hash_ok"]
