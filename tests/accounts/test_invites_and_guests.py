"""Issue 17, "Friends in one tap" and "Progress": a friend without an account sits down
from an invite link as a guest in one tap, a sign-up or log-in started there comes back
to the table, and a guest who signs up keeps his games."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from games import engine
from games.models import Game, Profile, Table
from games.services import accounts
from games.services import tables as table_services
from tests.support.games import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-secret-42"


def html(response) -> str:
    return response.content.decode()


def private_table(host, **kw) -> Table:
    return table_services.do_create_table(rules=engine.Rules(players=2), host=host, is_private=True, **kw)


def invited(client: Client, table: Table):
    """Open the invite link as the friend would, and return the table page."""
    return client.get(reverse("games:table-invite", kwargs={"token": table.invite_token}), follow=True)


def test_issue17_invite_link_offers_a_guest_seat_and_sign_up_that_come_back(client):
    table = private_table(make_user("hostess"))
    page = html(invited(client, table))
    here = reverse("games:table", kwargs={"table_id": table.pk})
    assert reverse("games:table-guest", kwargs={"table_id": table.pk}) in page
    assert "Играть как гость" in page
    assert f"{reverse('games:signup')}?next={here}" in page
    assert f"{reverse('games:login')}?next={here}" in page


def test_issue17_guest_takes_the_seat_in_one_tap(client):
    table = private_table(make_user("hostess"))
    invited(client, table)
    users_before = get_user_model().objects.count()
    response = client.post(reverse("games:table-guest", kwargs={"table_id": table.pk}))
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("games:table", kwargs={"table_id": table.pk})
    assert get_user_model().objects.count() == users_before + 1
    guest = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    assert guest.profile.is_guest
    assert table.seats.filter(user=guest).exists()
    # The table was full with him: it dealt, and the guest's page is his seat's.
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    assert Game.objects.filter(table=table, seats__user=guest).exists()


def test_issue17_guest_seat_is_a_post_with_csrf():
    table = private_table(make_user("hostess"))
    client = Client(enforce_csrf_checks=True)
    invited(client, table)
    url = reverse("games:table-guest", kwargs={"table_id": table.pk})
    assert client.get(url).status_code == 405
    assert client.post(url).status_code == 403
    assert not table.seats.exclude(user=table.host).filter(user__isnull=False).exists()


def test_issue17_no_guest_without_the_invite_and_none_left_behind(client):
    table = private_table(make_user("hostess"))
    users_before = get_user_model().objects.count()
    response = client.post(reverse("games:table-guest", kwargs={"table_id": table.pk}))
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert said == ["Это закрытый стол: сесть за него можно только по ссылке-приглашению."]
    assert get_user_model().objects.count() == users_before
    assert "_auth_user_id" not in client.session


def test_issue17_rated_table_asks_to_sign_up_instead(client):
    host = make_user("hostess")
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=host, rated=True)  # public: rated
    page = html(client.get(reverse("games:table", kwargs={"table_id": table.pk})))
    assert reverse("games:table-guest", kwargs={"table_id": table.pk}) not in page
    assert "Стол рейтинговый" in page
    users_before = get_user_model().objects.count()
    client.post(reverse("games:table-guest", kwargs={"table_id": table.pk}))
    assert get_user_model().objects.count() == users_before  # the refusal undid the guest


def test_issue17_guest_seats_keep_the_guest_rate(client, settings):
    settings.GUEST_CREATE_RATE = (1, 3600)
    first = private_table(make_user("hostess"))
    second = private_table(make_user("hostess2"))
    invited(client, first)
    client.post(reverse("games:table-guest", kwargs={"table_id": first.pk}))
    other = Client()
    invited(other, second)
    users_before = get_user_model().objects.count()
    response = other.post(reverse("games:table-guest", kwargs={"table_id": second.pk}), follow=True)
    assert "С вашего адреса пришло слишком много гостей" in html(response)
    assert get_user_model().objects.count() == users_before


def test_issue17_sign_up_from_the_invite_returns_to_the_table(client):
    table = private_table(make_user("hostess"))
    invited(client, table)
    here = reverse("games:table", kwargs={"table_id": table.pk})
    form = html(client.get(reverse("games:signup"), {"next": here}))
    assert f'name="next" value="{here}"' in form
    response = client.post(
        reverse("games:signup"), {"username": "drug", "password1": PASSWORD, "password2": PASSWORD, "next": here}
    )
    assert response.status_code == 302 and response.headers["Location"] == here
    # The invitation survived the sign-up: he can take the seat now.
    client.post(reverse("games:table-join", kwargs={"table_id": table.pk}))
    assert table.seats.filter(user__username="drug").exists()


def test_issue17_log_in_from_the_invite_returns_to_the_table_and_never_elsewhere(client):
    make_user("drug", password=PASSWORD)
    table = private_table(make_user("hostess"))
    invited(client, table)
    here = reverse("games:table", kwargs={"table_id": table.pk})
    response = client.post(reverse("games:login"), {"username": "drug", "password": PASSWORD, "next": here})
    assert response.headers["Location"] == here
    evil = Client()
    response = evil.post(
        reverse("games:signup"),
        {"username": "vor", "password1": PASSWORD, "password2": PASSWORD, "next": "https://evil.example/"},
    )
    assert response.headers["Location"] == reverse("games:home")


def test_issue17_guest_who_signs_up_keeps_his_games(client):
    client.post(reverse("games:guest"))
    guest = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    accounts.end_quick_games(guest)  # he resigns: the bots finish the game
    game = Game.objects.get(seats__user=guest)
    assert game.status == Game.Status.FINISHED
    users_before = get_user_model().objects.count()
    page = html(client.get(reverse("games:signup")))
    assert "ваши партии остаются вашими" in page
    response = client.post(reverse("games:signup"), {"username": "vanya", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302
    assert get_user_model().objects.count() == users_before  # the guest became the account
    user = get_user_model().objects.get(username="vanya")
    assert user.pk == guest.pk and user.check_password(PASSWORD)
    assert Profile.objects.get(user=user).is_guest is False
    assert Profile.objects.get(user=user).name_key == "vanya"
    assert int(client.session["_auth_user_id"]) == user.pk  # still signed in, the same session
    profile = html(client.get(reverse("games:profile", kwargs={"username": "vanya"})))
    assert reverse("games:game-record", kwargs={"game_id": game.pk}) in profile
    # And he may now log in with the new name and password.
    fresh = Client()
    response = fresh.post(reverse("games:login"), {"username": "vanya", "password": PASSWORD})
    assert int(fresh.session["_auth_user_id"]) == user.pk


def test_issue17_a_registered_user_signing_up_again_makes_a_new_account(client):
    someone = make_user("petya", password=PASSWORD)
    client.force_login(someone)
    client.post(reverse("games:signup"), {"username": "petya2", "password1": PASSWORD, "password2": PASSWORD})
    assert get_user_model().objects.get(pk=someone.pk).username == "petya"
    assert get_user_model().objects.filter(username="petya2").exists()


def test_issue17_invite_box_has_a_share_button_with_copy_as_fallback(client):
    host = make_user("hostess")
    table = private_table(host)
    client.force_login(host)
    page = html(client.get(reverse("games:table", kwargs={"table_id": table.pk})))
    assert 'data-share-target="invite-link"' in page
    assert ">Поделиться</button>" in page
    assert 'data-share-title="Дурак: садитесь за мой стол"' in page
    assert 'data-copied="Ссылка скопирована: вставьте её в чат"' in page
    assert "/static/js/share.js" in page
    link = f"http://testserver/t/invite/{table.invite_token}/"
    assert f"https://t.me/share/url?url={link.replace(':', '%3A').replace('/', '%2F')}" in page
    assert f"https://wa.me/?text={link.replace(':', '%3A').replace('/', '%2F')}" in page
    script = (Path(settings.BASE_DIR) / "static" / "js" / "share.js").read_text()
    assert "navigator.share(" in script and "clipboard.writeText" in script
    assert "<script>" not in page.split('id="table-invite"')[1].split("</section>")[0]  # no inline script (CSP)


def test_issue17_the_headers_sign_up_at_a_table_comes_back_to_it(client, players):
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=players[0])
    here = reverse("games:table", kwargs={"table_id": table.pk})
    header = html(client.get(here)).split('class="account-nav"', 1)[1].split("</nav>", 1)[0]
    assert f'href="{reverse("games:signup")}?next={here}"' in header
    assert f'href="{reverse("games:login")}?next={here}"' in header
    home_header = html(client.get(reverse("games:home"))).split('class="account-nav"', 1)[1].split("</nav>", 1)[0]
    assert f'href="{reverse("games:signup")}"' in home_header  # elsewhere: no detour back
