"""Issue 20/21: the arena's four buttons (pause, come back, leave, berserk) are one view read
from one table (tournaments.views.ARENA_BUTTONS), under their old addresses and names; the
berserk button's fallback when the form names no `next` is the event list, as before."""

from __future__ import annotations

import pytest
from django.urls import resolve, reverse

from games.models import GameSeat
from tournaments import views

from .helpers import latest_game
from .test_arena_pages import running_arena, table_of

pytestmark = pytest.mark.django_db

OLD_ADDRESSES = {
    "arena-pause": ("/tournaments/7/arena/pause/", {"tournament_id": 7}, "pause"),
    "arena-return": ("/tournaments/7/arena/return/", {"tournament_id": 7}, "return"),
    "arena-leave": ("/tournaments/7/arena/leave/", {"tournament_id": 7}, "leave"),
    "berserk": ("/tournaments/berserk/9/", {"game_id": 9}, "berserk"),
}


def test_issue21_the_arena_buttons_are_one_view_over_one_table_at_their_old_addresses():
    assert set(views.ARENA_BUTTONS) == {button for _, _, button in OLD_ADDRESSES.values()}
    for name, (path, kwargs, button) in OLD_ADDRESSES.items():
        assert reverse(f"tournaments:{name}", kwargs=kwargs) == path
        match = resolve(path)
        assert match.func is views.arena_button
        assert match.kwargs == {**kwargs, "button": button}


def test_issue20_berserk_without_a_next_goes_back_to_the_event_list_with_its_message(client, director):
    event, users = running_arena(director, count=2)
    me = users[0]
    game = latest_game(table_of(event, me).table_id)
    client.force_login(me)
    answer = client.post(f"/tournaments/berserk/{game.pk}/")
    assert answer.status_code == 302 and answer["Location"] == "/tournaments/"
    assert GameSeat.objects.get(game=game, user=me).berserk is True
    followed = client.get(answer["Location"]).content.decode()
    assert "Берсерк: в этой партии ваше время на ход вдвое меньше" in followed
