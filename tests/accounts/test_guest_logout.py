"""Issue 17, what was seen 6: "a guest's «Выйти» gives no warning". A guest has no
password: once logged out he can never come back to his games. His «Выйти» first opens
a warning (a <details>, no script needed) with «sign up and keep them» beside the real
log-out; a signed-up player logs out at once, as before."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.support import games as support_games

pytestmark = pytest.mark.django_db

WARNING = "Это гостевой аккаунт: после выхода его партии и рейтинг пропадут навсегда."


def header(client) -> str:
    page = client.get(reverse("games:home")).content.decode()
    return page.split('class="account-nav"', 1)[1].split("</nav>", 1)[0]


def test_issue17_a_guests_log_out_warns_that_his_games_are_lost(client):
    client.post(reverse("games:guest"))
    nav = header(client)
    details = re.search(r'<details class="guest-logout">(.*?)</details>', nav, re.S)
    assert details, nav
    inside = details.group(1)
    assert "<summary" in inside and "Выйти" in inside.split("</summary>")[0]
    assert WARNING in inside
    # the way to keep them, and the real log-out, only behind the warning
    assert reverse("games:signup") in inside and "Зарегистрироваться и сохранить" in inside
    assert f'action="{reverse("games:logout")}"' in inside and "Выйти и потерять их" in inside
    assert nav.count(f'action="{reverse("games:logout")}"') == 1


def test_issue17_the_guests_log_out_still_logs_out(client):
    client.post(reverse("games:guest"))
    assert "_auth_user_id" in client.session
    client.post(reverse("games:logout"))
    assert "_auth_user_id" not in client.session
    assert get_user_model().objects.filter(profile__is_guest=True).exists()


def test_issue17_a_signed_up_player_logs_out_without_the_warning(client):
    client.force_login(support_games.make_user("anna"))
    nav = header(client)
    assert WARNING not in nav and "guest-logout" not in nav
    assert f'action="{reverse("games:logout")}"' in nav
