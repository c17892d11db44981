"""Issue 17, "Verify in the browser": the verify page re-deals a finished game in the
player's own browser (static/js/verify.js: WebCrypto HMAC-SHA256 and the Fisher-Yates of
docs/fairness.md) and compares every card; the reference verifier is downloadable from
the site with its SHA-256 shown."""

from __future__ import annotations

import hashlib
import html as html_lib
import importlib.util
import json
import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from games import engine
from tests.support.games import open_game, play_to_end

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)
VERIFY_JS = ROOT / "static" / "js" / "verify.js"
VERIFIER = ROOT / "docs" / "fairness_verify.py"


def reference():
    """docs/fairness_verify.py as a module: the deal written in Python's standard library."""
    spec = importlib.util.spec_from_file_location("fairness_verify", VERIFIER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page_check(page: str) -> dict:
    found = re.search(r'id="browser-verify" data-check="([^"]*)"', page)
    assert found, "no check in the browser on the page"
    return json.loads(html_lib.unescape(found.group(1)))


def js_deals(node: str, cases: list[dict]) -> list[dict]:
    """Run verify.js's deal with node (its WebCrypto is the browsers' API) for each case."""
    program = (
        f"const v = require({json.dumps(str(VERIFY_JS))});"
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "Promise.all(cases.map(c => Promise.all([v.deal(c.seed, c.players, c.deck, c.dealer), v.seedHash(c.seed)])"
        ".then(([d, h]) => ({...d, seed_hash: h}))))"
        ".then(r => process.stdout.write(JSON.stringify(r)));"
    )
    done = subprocess.run(
        [node, "-e", program], input=json.dumps(cases), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def finished_game(players):
    users = players[:2]
    return play_to_end(open_game(users), users)


def test_issue17_verify_page_carries_the_python_deal_for_the_browser(client, finished_game):
    game = finished_game
    page = client.get(reverse("games:game-verify", kwargs={"game_id": game.pk})).content.decode()
    check = page_check(page)
    assert (check["seed"], check["seed_hash"], check["dealer"]) == (game.seed, game.seed_hash, game.dealer)
    assert (check["players"], check["deck"]) == (2, 36)
    # The site's deal on the page is the reference verifier's, card for card (the test vector).
    expected = reference().deal(game.seed, 2, 36, game.dealer)
    assert check["deal"]["hands"] == expected["hands"]
    assert check["deal"]["stock"] == expected["stock"]
    assert check["deal"]["trump_card"] == expected["trump_card"]
    assert len(check["deal"]["names"]) == 2
    assert "/static/js/verify.js" in page
    assert "Проверка в вашем браузере" in page
    assert 'data-all-match="Браузер сдал те же карты: совпадает каждая карта ({count} из {count})."' in page
    assert 'data-seat="Место {number}"' in page
    # No inline script: the CSP allows none.
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page)


def test_issue17_a_game_in_play_is_not_dealt_in_the_browser(client, players):
    game = open_game(players[:2])
    page = client.get(reverse("games:game-verify", kwargs={"game_id": game.pk})).content.decode()
    assert 'id="browser-verify"' not in page
    assert game.seed not in page


def test_issue17_the_javascript_deal_is_the_python_deal(node):
    module = reference()
    cases = [
        {"seed": "durak", "players": 2, "deck": 36, "dealer": 0},
        {"seed": "0" * 64, "players": 3, "deck": 24, "dealer": 2},
        {"seed": hashlib.sha256(b"table 7, game 3").hexdigest(), "players": 4, "deck": 24, "dealer": 1},
        {"seed": hashlib.sha256(b"six").hexdigest(), "players": 6, "deck": 36, "dealer": 5},
        {"seed": hashlib.sha256(b"big").hexdigest(), "players": 5, "deck": 52, "dealer": 3},
        {"seed": "a short seed", "players": 2, "deck": 52, "dealer": 1},
    ]
    for case, dealt in zip(cases, js_deals(node, cases), strict=True):
        expected = module.deal(case["seed"], case["players"], case["deck"], case["dealer"])
        assert dealt["hands"] == expected["hands"], case
        assert dealt["stock"] == expected["stock"], case
        assert dealt["trump_card"] == expected["trump_card"], case
        assert dealt["seed_hash"] == module.seed_hash(case["seed"])
    # The worked example of docs/fairness.md.
    example = js_deals(node, cases[:1])[0]
    assert example["seed_hash"] == "b079099f43e888e356a2259dfd64e464035d174ec93844c2c7d8edb990a54004"
    assert example["hands"][1] == ["8D", "KS", "10D", "JD", "QD", "AH"]
    assert example["trump_card"] == "9S"


def test_issue17_the_javascript_deals_a_site_game_as_the_site_did(node, client, players):
    users = players[:3]
    game = play_to_end(open_game(users, engine.Rules(players=3, deck=24)), users)
    check = page_check(client.get(reverse("games:game-verify", kwargs={"game_id": game.pk})).content.decode())
    (dealt,) = js_deals(node, [{k: check[k] for k in ("seed", "players", "deck", "dealer")}])
    assert dealt["seed_hash"] == check["seed_hash"]
    assert (dealt["hands"], dealt["stock"], dealt["trump_card"]) == (
        check["deal"]["hands"],
        check["deal"]["stock"],
        check["deal"]["trump_card"],
    )


def test_issue17_the_verifier_is_downloadable_with_its_sha256(client, finished_game):
    response = client.get(reverse("games:verifier-download"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/x-python")
    assert response["Content-Disposition"] == 'attachment; filename="fairness_verify.py"'
    assert response.content == VERIFIER.read_bytes()
    digest = hashlib.sha256(response.content).hexdigest()
    page = client.get(reverse("games:game-verify", kwargs={"game_id": finished_game.pk})).content.decode()
    assert f'<code class="hash verifier-sha256">{digest}</code>' in page
    assert reverse("games:verifier-download") in page
    assert "Скачать проверяющую программу" in page


def test_issue17_verify_js_writes_no_markup_from_data():
    script = VERIFY_JS.read_text()
    assert "innerHTML" not in script and "eval(" not in script
    assert 'subtle()\n        .sign("HMAC"' in script or '.sign("HMAC"' in script
    assert '"SHA-256"' in script
