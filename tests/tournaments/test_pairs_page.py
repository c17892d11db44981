"""Issue 16, "What was seen" 6: after 200 pair invite-and-cancel cycles against one
person her pairs page listed every old pair (67 KB). The page shows the live pairs
(active and invited) in full and only the last few ended ones, with a count of the rest."""

import re

import pytest

from tournaments import selectors, services
from tournaments.models import Pair

from .helpers import make_users

pytestmark = pytest.mark.django_db

CYCLES = 200


@pytest.fixture
def flooded(settings):
    settings.PAIR_INVITE_RATE = (CYCLES + 10, 3600)  # the cap is not what this test is about
    sender, target, friend, suitor = make_users(4, prefix="pp")
    for _ in range(CYCLES):
        pair = services.do_invite_partner(user=sender, partner=target)
        services.do_dissolve_pair(pair_id=pair.pk, user=sender)
    active = services.do_invite_partner(user=friend, partner=target)
    services.do_answer_invitation(pair_id=active.pk, user=target, accept=True)
    pending = services.do_invite_partner(user=suitor, partner=target)
    return target, sender, active, pending


def pair_links(page: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'href="/tournaments/pairs/(\d+)/"', page)]


def test_issue16_pairs_page_stays_small_after_200_cancelled_invitations(client, flooded):
    target, _sender, active, pending = flooded
    assert Pair.objects.filter(player_two=target).count() == CYCLES + 2
    client.force_login(target)
    answer = client.get("/tournaments/pairs/")
    assert answer.status_code == 200
    page = answer.text
    assert len(answer.content) < 15_000, f"{len(answer.content)} bytes"
    links = pair_links(page)
    assert active.pk in links and pending.pk in links, "the live pairs are all there"
    # The pending invitation can still be answered, the active pair dissolved.
    assert f'action="/tournaments/pairs/{pending.pk}/answer/"' in page
    assert f'action="/tournaments/pairs/{active.pk}/dissolve/"' in page
    ended = [pk for pk in links if pk not in (active.pk, pending.pk)]
    newest = list(
        Pair.objects.filter(player_two=target, status=Pair.Status.DISSOLVED)
        .order_by("-created_at", "-pk")
        .values_list("pk", flat=True)[: selectors.ENDED_PAIRS_SHOWN]
    )
    assert ended == newest, "only the last few ended pairs, newest first"
    assert f"и ещё {CYCLES - selectors.ENDED_PAIRS_SHOWN} завершённых" in page


def test_issue16_pairs_page_without_ended_pairs_has_no_history(client):
    one, two = make_users(2, prefix="pq")
    pair = services.do_invite_partner(user=one, partner=two)
    client.force_login(two)
    page = client.get("/tournaments/pairs/").text
    assert pair_links(page) == [pair.pk]
    assert "Завершённые пары" not in page
