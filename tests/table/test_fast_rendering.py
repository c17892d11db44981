"""The live path reuses work across seats (parsed positions, formatted log lines)
and gets the same as computing it afresh; `random_tables` plays random games in
all table options for the rendering tests too.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from django.utils import translation

from games import bots, engine, positions
from games.table import presenters
from tests.support.snapshots import snapshot_for

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
NAMES = ["alice", "<b>eve</b>", "Дмитрий", "o'neil & co", "bob", "x" * 20]


def random_rules(rng: random.Random) -> engine.Rules:
    players = rng.choice([2, 3, 4, 5, 6])
    variant = rng.choice(["podkidnoy", "perevodnoy"])
    deck = 52 if players > 4 else rng.choice([24, 36, 52]) if players <= 3 else rng.choice([36, 52])
    return engine.Rules(
        variant=variant,
        players=players,
        partners=players in (4, 6) and rng.random() < 0.5,
        deck=deck,
        first_bout_limit=rng.choice([5, 6]),
        throw_in=rng.choice(["all", "neighbours"]),
        trump_show_transfer=variant == "perevodnoy" and rng.random() < 0.4,
        trump_six_swap=deck != 24 and rng.random() < 0.4,
    )


def random_tables(count: int, seed: int):
    """(snapshot, events) pairs at random points of random games."""
    rng = random.Random(seed)
    for i in range(count):
        rules = random_rules(rng)
        position = engine.Game.new(rules, seed=f"fast-{seed}-{i}", dealer=rng.randrange(rules.players))
        bot = bots.get_bot(rng.choice(["random", "heuristic"]), seed=i)
        events = [{"type": "deal", "visible_to": None}]
        for _ in range(rng.randrange(0, 160)):
            if position.is_over:
                break
            seat = rng.choice(position.to_move())
            events += position.act(seat, bot.choose(position.view(seat)))
        over = position.is_over
        snapshot = snapshot_for(
            position,
            table_id=rng.randrange(1, 50),
            game_id=i + 1,
            names=[rng.choice(NAMES) for _ in range(rules.players)],
            status="finished" if over else "playing",
            is_private=rng.random() < 0.3,
            bot_levels={s: "heuristic" for s in range(rules.players) if rng.random() < 0.3},
            deadline=(NOW + timedelta(seconds=rng.randrange(-3, 40))).isoformat() if rng.random() < 0.6 else None,
            seed="s" * 16 if over else None,
        )
        for seat in snapshot["game"]["seats"]:
            seat["autopilot"] = rng.random() < 0.2
            seat["abandoned"] = seat["autopilot"] and rng.random() < 0.5
            seat["place"] = position.out.get(seat["number"])
        yield snapshot, events[-60:]


def viewers(snapshot):
    n = snapshot["table"]["seats_count"]
    return [(None, None), (None, 100)] + [(s, 100 + s) for s in range(n)]


def test_log_memo_formats_each_event_once_with_the_same_lines():
    for snapshot, events in random_tables(60, seed=4):
        for seat, vid in viewers(snapshot):
            memo: dict = {}
            for upto in range(1, len(events) + 1, 7):  # a live socket: events arrive a few at a time
                shown = events[:upto]
                with translation.override("en"):
                    fast = presenters.table_context(snapshot, seat, shown, viewer_id=vid, now=NOW, log_memo=memo)
                    plain = presenters.table_context(snapshot, seat, shown, viewer_id=vid, now=NOW)
                assert fast["log"] == plain["log"]
                assert len(memo["lines"]) == len(shown)  # one line per event shown, none older


def test_log_memo_follows_a_change_of_seat_and_language():
    snapshot, events = next(random_tables(1, seed=5))
    memo: dict = {}
    for seat, language in [(0, "en"), (1, "en"), (None, "en"), (1, "ru"), (0, "ru")]:
        with translation.override(language):
            fast = presenters.table_context(snapshot, seat, events, now=NOW, log_memo=memo)["log"]
            plain = presenters.table_context(snapshot, seat, events, now=NOW)["log"]
        assert fast == plain


def test_cached_positions_are_shared_and_never_changed_by_views():
    for snapshot, _events in random_tables(80, seed=6):
        state = snapshot["game"]["state_json"]
        shared = positions.shared_position(state)
        assert positions.shared_position(state) is shared
        for seat in [None, *range(shared.n)]:
            assert shared.view(seat) == engine.Game.from_json(state).view(seat)
        assert shared.to_json() == state
        played = shared.copy()  # what the play service does before acting
        if not played.is_over:
            seat = played.to_move()[0]
            played.act(seat, played.timeout_action(seat))
        assert shared.to_json() == state
