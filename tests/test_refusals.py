"""One refusal type: its message is translated when shown, in the active language."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import engine
from games.errors import ChatRefused, MoveRefused, Refusal, TableRefused, from_engine
from games.services import chat, play, tables
from tests.support.games import make_user, two_player_rules

pytestmark = pytest.mark.django_db


def russian(refusal: Refusal) -> str:
    with translation.override("ru"):
        return str(refusal)


def test_every_refusal_of_the_services_is_one_type():
    assert issubclass(MoveRefused, Refusal) and issubclass(TableRefused, Refusal) and issubclass(ChatRefused, Refusal)
    assert play.MoveRefused is MoveRefused


def test_a_table_refusal_reads_in_russian_with_its_numbers():
    users = [make_user(f"u{i}") for i in range(3)]
    with pytest.raises(TableRefused) as refused:
        tables.do_create_table(rules=two_player_rules(), host=users[0], seat_users=users)
    assert russian(refused.value) == "За столом 2 места, а не 3."
    with translation.override("en"):
        assert str(refused.value) == "The table has 2 seats, not 3."


def test_a_chat_refusal_reads_in_russian():
    user = make_user("chatter")
    with pytest.raises(ChatRefused) as refused:
        chat.do_post_chat(table_id=1, user=user, text="x" * 301)
    assert russian(refused.value) == "Сообщение — не длиннее 300 символов."


def test_an_engine_refusal_is_translated_by_its_code():
    position = engine.Game.new(engine.Rules(players=2), seed="refusal", dealer=0)
    defender = position.defender
    with pytest.raises(engine.IllegalAction) as illegal:
        position.act(defender, "take")
    refusal = from_engine(illegal.value)
    assert refusal.code == illegal.value.code == "table_empty"
    assert russian(refusal) == "На столе пока ничего нет."
