"""Issue 17, "Friends in one tap": a friends list (follow a player from his profile, see who
is online, invite him to your private table), with the limits of the trust work: follows
and invitations are rate-limited, a muted or blocked player cannot invite you (a blocked
one cannot follow you either), and guests cannot follow."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from friends import services
from friends.models import Follow, Invitation
from games import engine
from games.models import Profile, TableSeat
from games.services import tables as table_services
from tests.support import games as support_games

pytestmark = pytest.mark.django_db


@pytest.fixture
def anna(db):
    return support_games.make_user("anna")


@pytest.fixture
def boris(db):
    return support_games.make_user("boris")


def page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def post(client, name, **data):
    return client.post(reverse(f"friends:{name}"), data, follow=True).content.decode()


def profile_url(user) -> str:
    return reverse("games:profile", kwargs={"username": user.username})


def test_issue17_follow_a_player_from_his_profile_and_see_him_on_the_friends_page(client, anna, boris):
    client.force_login(anna)
    profile = page(client, profile_url(boris))
    assert "Подписаться" in profile and reverse("friends:follow") in profile
    post(client, "follow", player=boris.pk, next=profile_url(boris))
    assert Follow.objects.filter(follower=anna, followed=boris).exists()
    assert "Отписаться" in page(client, profile_url(boris))
    friends = page(client, reverse("friends:index"))
    assert "boris" in friends and "не в сети" in friends
    post(client, "unfollow", player=boris.pk)
    assert not Follow.objects.exists()


def test_issue17_the_friends_page_shows_who_is_online(client, anna, boris):
    vera = support_games.make_user("vera")
    services.do_follow(user=anna, other_id=boris.pk)
    services.do_follow(user=anna, other_id=vera.pk)
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=boris)
    # boris has his table's socket open (he came, and has not closed it)
    TableSeat.objects.filter(table=table, user=boris).update(seen_at=timezone.now())
    client.force_login(anna)
    friends = page(client, reverse("friends:index"))
    assert 'data-presence="online"' in friends and "в сети" in friends
    assert friends.index("boris") < friends.index("vera")  # who is here comes first
    # he closes it: for a few minutes he was just here, then he is offline
    TableSeat.objects.filter(table=table, user=boris).update(offline_since=timezone.now() - timedelta(minutes=1))
    # (he never said how to speak of him: words without gender)
    assert "в сети несколько минут назад" in page(client, reverse("friends:index"))
    TableSeat.objects.filter(table=table, user=boris).update(offline_since=timezone.now() - timedelta(minutes=30))
    assert 'data-presence="online"' not in page(client, reverse("friends:index"))


@pytest.mark.parametrize(
    ("address", "russian", "english"),
    [
        ("she", "была несколько минут назад", "was here a few minutes ago"),
        ("he", "был несколько минут назад", "was here a few minutes ago"),
        ("", "в сети несколько минут назад", "was here a few minutes ago"),
    ],
)
def test_a_friend_who_just_left_is_spoken_of_in_the_gender_he_chose(client, anna, address, russian, english):
    vera = support_games.make_user("vera")
    Profile.objects.filter(user=vera).update(address=address)
    services.do_follow(user=anna, other_id=vera.pk)
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=vera)
    TableSeat.objects.filter(table=table, user=vera).update(offline_since=timezone.now() - timedelta(minutes=1))
    client.force_login(anna)
    html = page(client, reverse("friends:index"))
    assert f'<span class="friend-presence recent">{russian}</span>' in html
    english_page = client.get(reverse("friends:index"), headers={"accept-language": "en"}).content.decode()
    assert f'<span class="friend-presence recent">{english}</span>' in english_page


def test_issue17_invite_a_friend_to_your_private_table(client, anna, boris):
    services.do_follow(user=anna, other_id=boris.pk)
    table = table_services.do_create_table(rules=engine.Rules(players=2), host=anna, is_private=True)
    client.force_login(anna)
    friends = page(client, reverse("friends:index"))
    assert "Пригласить за стол" in friends
    assert "Приглашение отправлено" in post(client, "invite", player=boris.pk)
    assert "Вы уже пригласили этого игрока за этот стол." in post(client, "invite", player=boris.pk)
    assert Invitation.objects.count() == 1

    client.force_login(boris)
    received = page(client, reverse("friends:index"))
    link = reverse("games:table-invite", args=[table.invite_token])
    assert "anna приглашает вас за стол" in received and link in received
    # the link seats him: it is the table's own invite link
    assert client.get(link).status_code == 302


def test_issue17_an_invitation_needs_a_private_table_and_a_friend(client, anna, boris):
    client.force_login(anna)
    assert "Сначала подпишитесь на игрока" in post(client, "invite", player=boris.pk)
    services.do_follow(user=anna, other_id=boris.pk)
    table_services.do_create_table(rules=engine.Rules(players=2), host=anna)  # a public one
    assert "Сначала откройте закрытый стол" in post(client, "invite", player=boris.pk)
    assert not Invitation.objects.exists()


def test_issue17_a_muted_player_cannot_invite_you(client, anna, boris):
    services.do_follow(user=anna, other_id=boris.pk)
    table_services.do_create_table(rules=engine.Rules(players=2), host=anna, is_private=True)
    client.force_login(boris)
    post(client, "keep-away", player=anna.pk, kind="mute")
    client.force_login(anna)
    assert "Этот игрок не принимает от вас приглашения." in post(client, "invite", player=boris.pk)
    assert not Invitation.objects.exists()
    assert Follow.objects.filter(follower=anna, followed=boris).exists()  # muting keeps the follow


def test_issue17_a_blocked_player_can_neither_follow_nor_invite_you(client, anna, boris):
    services.do_follow(user=anna, other_id=boris.pk)
    table_services.do_create_table(rules=engine.Rules(players=2), host=anna, is_private=True)
    services.do_invite(user=anna, friend_id=boris.pk)
    client.force_login(boris)
    post(client, "keep-away", player=anna.pk, kind="block")
    assert not Follow.objects.filter(follower=anna, followed=boris).exists()
    assert "anna приглашает" not in page(client, reverse("friends:index"))
    client.force_login(anna)
    assert "Этот игрок не принимает от вас подписку." in post(client, "follow", player=boris.pk)
    assert not Follow.objects.filter(follower=anna, followed=boris).exists()
    client.force_login(boris)
    post(client, "let-back", player=anna.pk)
    services.do_follow(user=anna, other_id=boris.pk)  # let back in, he may again


def test_issue17_guests_cannot_follow(client, anna):
    guest = support_games.make_user("guest-1234")
    Profile.objects.filter(user=guest).update(is_guest=True)
    client.force_login(guest)
    profile = page(client, profile_url(anna))
    assert reverse("friends:follow") not in profile
    assert "Зарегистрируйтесь, чтобы подписываться на игроков" in profile
    assert "Гости не могут подписываться на игроков" in post(client, "follow", player=anna.pk)
    assert not Follow.objects.exists()


def test_issue17_follows_are_rate_limited(client, anna, monkeypatch):
    monkeypatch.setattr(services, "FOLLOW_RATE", (2, 3600))
    others = [support_games.make_user(f"player{i}") for i in range(3)]
    client.force_login(anna)
    for other in others[:2]:
        post(client, "follow", player=other.pk)
    assert "Вы подписались на слишком многих" in post(client, "follow", player=others[2].pk)
    assert Follow.objects.count() == 2


def test_issue17_invitations_are_rate_limited(anna, monkeypatch):
    monkeypatch.setattr(services, "INVITE_RATE", (1, 600))
    friends = [support_games.make_user(f"friend{i}") for i in range(2)]
    for friend in friends:
        services.do_follow(user=anna, other_id=friend.pk)
    table_services.do_create_table(rules=engine.Rules(players=2), host=anna, is_private=True)
    services.do_invite(user=anna, friend_id=friends[0].pk)
    with pytest.raises(services.FriendRefused):
        services.do_invite(user=anna, friend_id=friends[1].pk)
    assert Invitation.objects.count() == 1


def test_issue17_nobody_follows_himself_or_a_player_who_is_not_there(anna):
    with pytest.raises(services.FriendRefused):
        services.do_follow(user=anna, other_id=anna.pk)
    with pytest.raises(services.FriendRefused):
        services.do_follow(user=anna, other_id="999999")
    with pytest.raises(services.FriendRefused):
        services.do_follow(user=anna, other_id="not a number")
    assert not Follow.objects.exists()


def test_issue17_the_friends_page_needs_an_account(client):
    response = client.get(reverse("friends:index"))
    assert response.status_code == 302 and reverse("games:login") in response.headers["Location"]


def test_issue17_the_way_to_the_friends_page(client, anna):
    client.force_login(anna)
    home = page(client, reverse("games:home"))
    assert f'href="{reverse("friends:index")}"' in home.split('class="account-nav"', 1)[1].split("</nav>", 1)[0]
    own = page(client, profile_url(anna))
    assert "Мои друзья" in own and reverse("friends:follow") not in own  # nobody follows himself
