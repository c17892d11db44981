"""games.positions: the process's parsed positions are shared read-only, copied to play on, and bounded."""

from __future__ import annotations

from types import SimpleNamespace

from games import engine, positions


def dealt(seed: str) -> engine.Game:
    return positions.deal(engine.Rules(players=2), seed, 0)


def test_a_position_to_play_on_is_a_copy_of_the_shared_one():
    position = dealt("copy")
    state = position.to_json()
    positions.remember(state, position)
    game = SimpleNamespace(state_json=state)
    mine = positions.position_of(game)
    assert mine == position and mine is not positions.shared_position(state)
    seat = mine.to_move()[0]
    mine.act(seat, mine.timeout_action(seat))
    assert positions.shared_position(state).to_json() == state


def test_the_cache_keeps_at_most_its_size_and_drops_the_least_recently_used():
    first = dealt("first")
    positions.remember(first.to_json(), first)
    for n in range(positions.POSITION_CACHE_SIZE + 50):
        if n % 100 == 0:
            assert positions.shared_position(first.to_json()) is first  # used: kept
        position = dealt(f"bulk-{n}")
        positions.remember(position.to_json(), position)
    assert positions.cached_count() == positions.POSITION_CACHE_SIZE
    oldest = dealt("bulk-1")
    assert positions.shared_position(oldest.to_json()) is not oldest  # dropped, parsed again
    assert positions.shared_position(oldest.to_json()) == oldest


def test_the_deal_method_of_a_game_is_the_one_it_was_dealt_with():
    rules = engine.Rules(players=2)
    legacy = positions.deal(rules, "seed", 0, deal_method=1)
    current = positions.deal(rules, "seed", 0, deal_method=engine.DEAL_METHOD)
    game = SimpleNamespace(rules=rules.to_dict(), seed="seed", dealer=0, deal_method=1)
    assert positions.deal_of(game) == legacy
    assert engine.DEAL_METHOD == 1 or current != legacy
