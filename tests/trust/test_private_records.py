"""Records of private games are for the table's people and staff; a verifier gets what he needs."""

from __future__ import annotations

import html as html_lib
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import engine
from games.services import tables as table_services
from tests.support.games import latest_game, play_to_end

pytestmark = pytest.mark.django_db

COMMAND_RE = re.compile(r'<pre class="verify-command"><code>(.*?)</code></pre>', re.S)


def finished_game(users, is_private=True):
    table = table_services.do_create_table(
        rules=engine.Rules(players=2), host=users[0], seat_users=list(users), is_private=is_private, start=True
    )
    return play_to_end(latest_game(table), users)


def pages(game) -> list[str]:
    record = reverse("games:game-record", kwargs={"game_id": game.pk})
    return [record, record + "?step=1", reverse("games:game-verify", kwargs={"game_id": game.pk})]


def test_a_private_game_record_is_for_its_players_only(client, players):
    game = finished_game(players[:2])
    for user in players[:2]:
        client.force_login(user)
        assert [client.get(url).status_code for url in pages(game)] == [200, 200, 200]
    client.force_login(players[2])  # signed in, not at that table
    assert [client.get(url).status_code for url in pages(game)] == [404, 404, 404]
    client.logout()
    assert [client.get(url).status_code for url in pages(game)] == [404, 404, 404]
    staff = get_user_model().objects.create_user("referee", is_staff=True)
    client.force_login(staff)
    assert [client.get(url).status_code for url in pages(game)] == [200, 200, 200]


def test_a_private_game_in_progress_is_hidden_too(client, players):
    table = table_services.do_create_table(
        rules=engine.Rules(players=2), host=players[0], seat_users=players[:2], is_private=True, start=True
    )
    game = latest_game(table)
    client.force_login(players[2])
    assert client.get(reverse("games:game-record", kwargs={"game_id": game.pk})).status_code == 404
    client.force_login(players[1])
    assert client.get(reverse("games:game-record", kwargs={"game_id": game.pk})).status_code == 200


def test_public_game_records_stay_public(client, players):
    game = finished_game(players[:2], is_private=False)
    assert [client.get(url).status_code for url in pages(game)] == [200, 200, 200]


def test_profiles_link_private_records_only_for_those_who_may_open_them(client, players):
    game = finished_game(players[:2])
    record = reverse("games:game-record", kwargs={"game_id": game.pk})
    profile = reverse("games:profile", kwargs={"username": players[0].username})
    client.force_login(players[2])
    assert f'href="{record}"' not in client.get(profile).content.decode()
    client.force_login(players[1])
    assert f'href="{record}"' in client.get(profile).content.decode()


def test_record_and_verify_pages_say_what_an_outside_verifier_needs(client, players):
    game = finished_game(players[:2], is_private=False)
    assert game.deal_method == 2
    for url in pages(game)[::2]:
        page = client.get(url).content.decode()
        # Seats are counted from 1 everywhere on the site; the verifier's --dealer from 0.
        assert (
            f"Раздающий: место {game.dealer + 1} (программа проверки считает места от 0: --dealer {game.dealer})."
            in page
        )
        assert "Способ раздачи: 2." in page
        match = COMMAND_RE.search(page)
        assert match, url
        command = shlex.split(html_lib.unescape(match.group(1)))
        assert command[:2] == ["python3", "docs/fairness_verify.py"]
        assert command[command.index("--seed") + 1] == game.seed
        assert command[command.index("--dealer") + 1] == str(game.dealer)
        # The command as printed re-deals the game with the reference verifier and checks the hash.
        run = subprocess.run(
            [sys.executable, *command[1:]], cwd=Path(settings.BASE_DIR), capture_output=True, text=True, timeout=60
        )
        assert run.returncode == 0, run.stdout + run.stderr


def test_a_game_in_progress_shows_no_command(client, players):
    table = table_services.do_create_table(
        rules=engine.Rules(players=2), host=players[0], seat_users=players[:2], start=True
    )
    page = client.get(reverse("games:game-record", kwargs={"game_id": latest_game(table).pk})).content.decode()
    assert "verify-command" not in page
