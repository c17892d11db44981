"""The notice "your club was invited" (battles.signals.club_invited): sent to the invited club's
owner and to its leaders who run its events, each by the notices he chose, once, with a link to
the battle's page; never to a plain member, and not at all once the club has answered."""

from __future__ import annotations

import pytest
from django.core import mail

from battles import services as battle_services
from battles.models import BattleClub
from clubs.models import Membership
from notices import services as notice_services
from notices import tasks as notice_tasks
from tests.battles.helpers import club_with, leader_of, make_battle

pytestmark = pytest.mark.django_db


def opt_in(user, kinds=("club_invited",), push=()):
    user.email = f"{user.username}@mail.example"
    user.save(update_fields=["email"])
    notice_services.do_save_preferences(user=user, email_kinds=list(kinds), push_kinds=list(push), language="ru")


def run(enqueued):
    for args, queue in list(enqueued):
        assert queue == "batch"
        notice_tasks.send_notice(*args)
    enqueued.clear()


def test_the_invited_clubs_leaders_are_told_by_the_notices_they_chose(enqueued, django_capture_on_commit_callbacks):
    a, a_owner, _ = club_with("alpha", 1)
    b, b_owner, b_people = club_with("beta", 1)
    b_leader = leader_of(b, b_owner, "beta-leader")
    quiet_leader = leader_of(b, b_owner, "beta-quiet")
    news_only = leader_of(b, b_owner, "beta-news")
    Membership.objects.filter(user=news_only).update(may_run_events=False, may_post_news=True)
    for person in (a_owner, b_owner, b_leader, news_only, b_people[1]):
        opt_in(person)
    opt_in(quiet_leader, kinds=("final",))
    with django_capture_on_commit_callbacks(execute=True):
        battle = make_battle(a, a_owner, [b])
    invitation = BattleClub.objects.get(battle=battle, club=b)
    assert enqueued == [(["club_invited", invitation.pk], "batch")]
    run(enqueued)
    assert sorted(m.to[0] for m in mail.outbox) == ["beta-leader@mail.example", "beta-owner@mail.example"]
    message = mail.outbox[0]
    assert message.subject == "«Клуб beta» приглашён в битву клубов «Битва клубов»"
    assert "«Клуб alpha» приглашает «Клуб beta» в битву клубов «Битва клубов»." in message.body
    assert f"https://club.example/battles/{battle.pk}/" in message.body
    notice_tasks.send_notice("club_invited", invitation.pk)
    assert len(mail.outbox) == 2  # each message once


def test_nothing_is_sent_once_the_club_has_answered(enqueued, django_capture_on_commit_callbacks):
    a, a_owner, _ = club_with("alpha", 0)
    b, b_owner, _ = club_with("beta", 0)
    opt_in(b_owner)
    with django_capture_on_commit_callbacks(execute=True):
        battle = make_battle(a, a_owner, [b])
    battle_services.do_answer_invitation(b_owner, battle_id=battle.pk, club_id=b.pk, accept=False)
    run(enqueued)
    assert mail.outbox == []
