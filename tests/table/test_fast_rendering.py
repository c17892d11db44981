"""The live path's shortcuts render exactly what the plain templates render.

Every move is rendered once per seat, so the table's hot spots skip parts of
the template engine (games/templatetags/table_cards.py: seat panels in Python,
whole card lists in one tag, `{% memo %}` blocks) and reuse work across seats
(parsed positions, formatted log lines). These tests play random games in all
table options and compare, byte for byte, with the plain way of rendering.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from django.template import Context, Template
from django.utils import translation

from games import bots, engine, positions
from games.table import presenters, rendering
from games.templatetags import table_cards
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


def render_all(snapshot, events, seat, viewer_id, language, **kw) -> str:
    with translation.override(language):
        context = presenters.table_context(snapshot, seat, events, viewer_id=viewer_id, now=NOW, **kw)
        return rendering.live_fragments(context, language, "csrf-token-1")


@pytest.fixture
def memo_off(monkeypatch):
    def off():
        monkeypatch.setattr(table_cards, "MEMO_ENABLED", False)

    return off


def test_memo_blocks_render_what_the_template_renders(memo_off):
    cases = list(random_tables(120, seed=1))
    remembered = [
        render_all(s, e, seat, vid, lang) for s, e in cases for seat, vid in viewers(s) for lang in ("ru", "en")
    ]
    memo_off()
    plain = [render_all(s, e, seat, vid, lang) for s, e in cases for seat, vid in viewers(s) for lang in ("ru", "en")]
    assert remembered == plain


def test_seat_panels_in_python_match_seat_html():
    checked = 0
    for snapshot, events in random_tables(150, seed=2):
        for seat, vid in viewers(snapshot):
            for language in ("ru", "en"):
                with translation.override(language):
                    context = presenters.table_context(snapshot, seat, events, viewer_id=vid, now=NOW)
                    for panel in context.get("panels") or []:
                        assert table_cards.render_seat(panel) == table_cards.render_template_seat(panel)
                        checked += 1
    assert checked > 1000


# The loops of state.html and log.html the list tags replace, as they were.
LOOPS = Template(
    "{% load table_cards %}"
    "[{% for p in panels %}{% seat_panel p %}{% endfor %}]"
    "[{% for c in hand %}\n          {% hand_card c %}\n          {% endfor %}]"
    "[{% for pair in pairs %}\n"
    '          <div class="t-pair{% if pair.defence %} covered{% endif %}">\n'
    '            {% table_card pair.attack "t-attack" %}\n'
    '            {% if pair.defence %}{% table_card pair.defence "t-defence" %}{% endif %}\n'
    "          </div>\n          {% endfor %}]"
    "[{% for line in log reversed %}<li>{{ line }}</li>{% endfor %}]"
)
TAGS = Template(
    "{% load table_cards %}"
    "[{% seat_panels panels %}][{% hand_cards hand %}][{% table_pairs pairs %}][{% log_items log %}]"
)


def test_list_tags_match_the_loops_they_replace():
    for snapshot, events in random_tables(150, seed=3):
        for seat, vid in viewers(snapshot):
            with translation.override("ru"):
                context = presenters.table_context(snapshot, seat, events, viewer_id=vid, now=NOW)
                if context["game"] is None:
                    continue
                assert TAGS.render(Context(context)) == LOOPS.render(Context(context))


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
