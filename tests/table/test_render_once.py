"""Render once per move: the part of the table every seat sees alike is rendered once.

A change of a table is rendered ONCE per process and language from the
spectator's view (`rendering.shared_state`); each socket renders only its own
regions (its seat's attributes, the seats around it, the pairs it may cover,
its status, hand and buttons, its forms, its log) and fills them in. What a
socket sends must be, byte for byte, what the plain per-viewer rendering sends
(and what the page shows), and the shared text may hold only what a spectator
may see.
"""

from __future__ import annotations

import pytest
from django.utils import translation

from games import engine, positions
from games.table import presenters, rendering
from tests.support.snapshots import card_codes, snapshot_for, visible_now
from tests.table.test_fast_rendering import NOW, random_tables, viewers


def spectator_context(snapshot, language):
    with translation.override(language):
        return presenters.table_context(snapshot, None, (), now=NOW)


@pytest.mark.parametrize("quick", [True, False], ids=["python-regions", "template-regions"])
def test_a_seat_gets_exactly_what_the_plain_rendering_gives_it(quick, monkeypatch):
    monkeypatch.setattr(rendering, "QUICK_REGIONS", quick)
    checked = 0
    for snapshot, events in random_tables(80, seed=31):
        for language in ("ru", "en"):
            shared = rendering.shared_state(spectator_context(snapshot, language), language)
            for seat, viewer_id in viewers(snapshot):
                with translation.override(language):
                    context = presenters.table_context(snapshot, seat, events, viewer_id=viewer_id, now=NOW)
                    reusing = presenters.table_context(
                        snapshot, seat, events, viewer_id=viewer_id, now=NOW, spectator=shared.context
                    )
                plain = rendering.live_fragments(context, language, "csrf-token-1")
                assert rendering.seat_fragments(shared, reusing, language, "csrf-token-1") == plain
                assert rendering.live_fragments(reusing, language, "csrf-token-1") == plain
                checked += 1
    assert checked > 800


def test_the_shared_part_holds_only_what_a_spectator_may_see():
    for snapshot, _events in random_tables(100, seed=32):
        position = positions.shared_position(snapshot["game"]["state_json"])
        public = visible_now(position, None)
        for language in ("ru", "en"):
            shared = rendering.shared_state(spectator_context(snapshot, language), language)
            text = "".join(shared.texts) + shared.pairs
            assert card_codes(text) <= public
            assert "data-action" not in text and "csrfmiddlewaretoken" not in text
            assert "my-turn" not in text and "t-hand" not in text


def test_a_hand_never_lands_in_the_shared_part():
    rules = engine.Rules(players=2)
    position = engine.Game.from_layout(
        rules, hands=[["6S", "7S", "8H"], ["6H", "9S", "10S"]], stock=["8S", "9H", "10C"], attacker=0
    )
    position.act(0, "attack 6S")  # seat 1 may cover 6S: his pairs are his own
    snapshot = snapshot_for(position)
    shared = rendering.shared_state(spectator_context(snapshot, "en"), "en")
    text = "".join(shared.texts) + shared.pairs
    assert card_codes(text) == {"6S", "10C"}  # the attack card and the face-up trump
    assert 'data-target="1"' not in text
    with translation.override("en"):
        defender = presenters.table_context(snapshot, 1, (), viewer_id=101, now=NOW)
    frame = rendering.seat_fragments(shared, defender, "en")
    assert {"6H", "9S", "10S"} <= card_codes(frame) and 'data-target="1"' in frame
    with translation.override("en"):
        attacker = presenters.table_context(snapshot, 0, (), viewer_id=100, now=NOW)
    frame = rendering.seat_fragments(shared, attacker, "en")
    assert not card_codes(frame) & {"6H", "9S", "10S"}


def test_one_render_per_group_message_and_language():
    snapshot, _events = next(random_tables(1, seed=33))
    calls = []
    real = presenters.table_context

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(presenters, "table_context", counting)
        first = rendering.shared_state_of(snapshot, "ru", key="message-1")
        assert rendering.shared_state_of(snapshot, "ru", key="message-1") is first
        assert rendering.shared_state_of(snapshot, "en", key="message-1") is not first
    assert calls == [None, None]  # the spectator's context, once per language


def test_the_cache_of_shared_parts_is_bounded():
    snapshot, _events = next(random_tables(1, seed=34))
    for i in range(rendering.SHARED_CACHE_SIZE + 50):
        rendering.shared_state_of(snapshot, "ru", key=f"bounded-{i}")
    assert rendering.shared_parts_kept() == rendering.SHARED_CACHE_SIZE
