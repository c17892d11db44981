"""The battle board over the socket: an answer or an entry re-renders it for every viewer."""

import pytest
from channels.db import database_sync_to_async

from battles import services
from tests.battles.helpers import club_with, make_battle
from tests.support import sockets

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def setup_battle():
    a, a_owner, _ = club_with("alpha", 1)
    b, b_owner, b_people = club_with("beta", 1)
    return make_battle(a, a_owner, [b]), b, b_owner, b_people


async def test_the_board_updates_over_the_socket_when_a_club_accepts_and_a_player_enters():
    battle, b, b_owner, b_people = await setup_battle()
    socket, accepted = await sockets.connect(f"/ws/battles/{battle.pk}/")
    assert accepted
    await database_sync_to_async(services.do_answer_invitation)(b_owner, battle_id=battle.pk, club_id=b.pk, accept=True)
    board = await socket.receive_from(timeout=5)
    assert 'id="battle-board"' in board and 'hx-swap-oob="true"' in board and "(приглашён)" not in board
    await database_sync_to_async(services.do_enter)(b_people[1], battle_id=battle.pk, club_id=b.pk)
    board = await socket.receive_from(timeout=5)
    assert "beta-00" in board
    await socket.disconnect()


async def test_no_socket_for_a_battle_that_does_not_exist():
    _socket, accepted = await sockets.connect("/ws/battles/999999/")
    assert not accepted
