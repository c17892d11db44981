"""Issue 16, item 6 ("Floods and caps"): pair invitations per hour, and "play now"
with bots counted against the table-opening limits.

"200 pair invite-and-cancel cycles against one person went through, with 200 notices";
"'play now' with bots skips both table-opening limits (12 bot tables in 250 s, expert
bots included)". Both counts live in the cache (games.limits), like the lobby's.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.errors import Refusal
from games.models import Table
from games.services import matchmaking
from tests.support.games import make_user
from tournaments import services as tournaments
from tournaments.models import Pair

pytestmark = pytest.mark.django_db

TOO_MANY_INVITES = "Вы слишком часто приглашаете в пары: попробуйте позже."
TOO_FAST = "Вы открываете столы слишком часто: подождите несколько минут."
THREE_OPEN = "У вас уже открыто 3 стола с ботами или в ожидании игроков: доиграйте или уйдите из одного из них."


def test_invite_and_cancel_cycles_stop_at_the_hourly_cap(settings):
    settings.PAIR_INVITE_RATE = (5, 3600)
    mallory, victim, friend = make_user("mallory"), make_user("victim"), make_user("friend")
    for _ in range(5):
        pair = tournaments.do_invite_partner(user=mallory, partner=victim)
        tournaments.do_dissolve_pair(pair_id=pair.pk, user=mallory)
    with pytest.raises(tournaments.TournamentRefused) as refused:
        tournaments.do_invite_partner(user=mallory, partner=victim)
    assert str(refused.value) == TOO_MANY_INVITES
    # The cap is the inviter's: toward anyone, and nothing was written.
    with pytest.raises(tournaments.TournamentRefused):
        tournaments.do_invite_partner(user=mallory, partner=friend)
    assert Pair.objects.filter(created_by=mallory).count() == 5
    # Others still invite.
    tournaments.do_invite_partner(user=friend, partner=victim)


def test_refused_invitations_do_not_use_up_the_cap(settings):
    settings.PAIR_INVITE_RATE = (1, 3600)
    a, b = make_user("a"), make_user("b")
    with pytest.raises(tournaments.TournamentRefused):
        tournaments.do_invite_partner(user=a, partner=a)
    tournaments.do_invite_partner(user=a, partner=b)


def bot_table(user, started):
    """Join the queue alone, wait, fill with bots."""
    matchmaking.do_join_queue(user=user, variant="podkidnoy", players=2, now=started)
    later = started + timedelta(seconds=matchmaking.BOTS_AFTER_SECONDS + 1)
    matchmaking.do_poll_queue(user=user, now=later - timedelta(seconds=2))
    return matchmaking.do_fill_with_bots(user=user, now=later)


def test_play_now_with_bots_counts_against_the_open_tables_limit(settings):
    settings.MAX_WAITING_TABLES = 3
    alice = make_user("alice")
    started = timezone.now()
    for _ in range(3):
        bot_table(alice, started)
    with pytest.raises(matchmaking.QueueRefused) as refused:
        bot_table(alice, started)
    assert str(refused.value) == THREE_OPEN
    assert Table.objects.filter(host=alice).count() == 3
    # A finished bot table no longer counts.
    Table.objects.filter(host=alice).filter(pk=Table.objects.filter(host=alice).first().pk).update(
        status=Table.Status.FINISHED
    )
    bot_table(alice, started)


def test_play_now_with_bots_counts_against_the_table_rate(settings):
    settings.TABLE_CREATE_RATE = (2, 600)
    settings.MAX_WAITING_TABLES = 10
    alice = make_user("alice")
    started = timezone.now()
    for _ in range(2):
        bot_table(alice, started)
    with pytest.raises(Refusal) as refused:
        bot_table(alice, started)
    assert str(refused.value) == TOO_FAST
    assert Table.objects.filter(host=alice).count() == 2
