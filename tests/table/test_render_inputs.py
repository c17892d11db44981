"""Issue 21, "Speed": an update renders only the regions whose inputs changed, the shared
regions and panels only when a socket needs them, and a seat panel, hand card or pair
seen before not again; what the socket shows stays what a fresh render shows.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta

from django.utils import translation

from games import bots, engine
from games.table import presenters, rendering
from tests.support.snapshots import snapshot_for
from tests.table.test_fast_rendering import NOW, random_rules

SWAPPED_ID = re.compile(r'<[a-z]+[^>]* id="([\w-]+)"[^>]*hx-swap-oob="true"')


def context_of(snapshot, seat, events, viewer_id, shared=None, language="en"):
    with translation.override(language):
        return presenters.table_context(
            snapshot, seat, events, viewer_id=viewer_id, now=NOW, spectator=shared.context if shared else None
        )


def whole_games(seed: int, games: int):
    """Consecutive snapshots of whole games, as one table's group messages bring them."""
    rng = random.Random(seed)
    for g in range(games):
        rules = random_rules(rng)
        position = engine.Game.new(rules, seed=f"inputs-{seed}-{g}", dealer=rng.randrange(rules.players))
        bot = bots.get_bot("heuristic", seed=g)
        events = [{"type": "deal", "visible_to": None}]
        bot_levels = {s: "heuristic" for s in range(rules.players) if rng.random() < 0.3}
        steps = []
        while True:
            deadline = (NOW + timedelta(seconds=rng.randrange(-3, 40))).isoformat() if rng.random() < 0.5 else None
            over = position.is_over
            snapshot = snapshot_for(
                position,
                table_id=g + 1,
                game_id=g + 1,
                status="finished" if over else "playing",
                bot_levels=bot_levels,
                deadline=deadline,
                seed="s" * 16 if over else None,
            )
            for seat in snapshot["game"]["seats"]:
                seat["place"] = position.out.get(seat["number"])
            steps.append((snapshot, events[-60:]))
            if over or len(steps) > 400:
                break
            seat = rng.choice(position.to_move())
            events = events + position.act(seat, bot.choose(position.view(seat)))
        yield rules, steps


def test_issue21_speed_every_update_leaves_the_socket_showing_a_fresh_render_over_whole_games():
    """The regions skipped because their inputs did not change are exactly those whose
    HTML would not have changed: REGION_INPUTS misses nothing the template reads."""
    updates = skipped = 0
    for i, (rules, steps) in enumerate(whole_games(seed=51, games=6)):
        seats = [(None, None)] + [(s, 100 + s) for s in range(rules.players)]
        views = {seat: rendering.LiveView("en", "csrf-1") for seat, _ in seats}
        first, first_events = steps[0]
        for seat, viewer_id in seats:
            views[seat].full(context_of(first, seat, first_events, viewer_id))
        for n, (snapshot, events) in enumerate(steps[1:]):
            shared = rendering.shared_regions_of(snapshot, "en", key=f"inputs-{i}-{n}")
            for seat, viewer_id in seats:
                view = views[seat]
                shown = dict(view.regions)
                context = context_of(snapshot, seat, events, viewer_id, shared)
                frame = view.update(context, shared)
                with translation.override("en"):
                    names = rendering.region_names(context)
                    fresh = rendering.render_regions(rendering.decorated(context), names, "csrf-1")
                assert view.regions == fresh, (rules, seat, n)
                swapped = set(SWAPPED_ID.findall(frame))
                for name, html in fresh.items():
                    region_id = SWAPPED_ID.search(html).group(1)
                    assert (region_id in swapped) == (name == "meta" or html != shown[name]), name
                updates += 1
                skipped += len(names) - len(swapped)
    assert updates > 500 and skipped > updates  # (most regions of most updates are not sent)


def test_issue21_speed_an_update_renders_only_the_regions_whose_inputs_changed(monkeypatch):
    rules = engine.Rules(players=2)
    position = engine.Game.from_layout(
        rules, hands=[["6S", "7S", "8H"], ["6H", "9S", "10S"]], stock=["8S", "9H", "10C"], attacker=0
    )
    events = [{"type": "deal", "visible_to": None}]
    before = snapshot_for(position)
    view = rendering.LiveView("en", "csrf")
    view.full(context_of(before, 1, events, 101))
    rendered = []
    real = rendering.render_regions
    monkeypatch.setattr(rendering, "render_regions", lambda c, names, *a: rendered.extend(names) or real(c, names, *a))
    same = rendering.shared_regions_of(before, "en", key="inputs-same")
    view.update(context_of(before, 1, events, 101, same), same)
    assert rendered == ["meta"]  # nothing else read anything new
    del rendered[:]
    position.act(0, "attack 6S")
    after = snapshot_for(position)
    moved = rendering.shared_regions_of(after, "en", key="inputs-moved")
    view.update(context_of(after, 1, events, 101, moved), moved)
    # the defender may cover 6S: his own pairs; the deck, the discard, the header and the seating stay
    assert set(rendered) == {"meta", "seats_top", "pairs", "status", "bottom"}


def test_issue21_speed_shared_regions_and_panels_are_rendered_when_first_needed(monkeypatch):
    position = engine.Game.new(engine.Rules(players=6), seed="lazy", dealer=0)
    snapshot = snapshot_for(position)
    calls = []
    real = rendering.fragment
    monkeypatch.setattr(rendering, "fragment", lambda name, value, *a: calls.append(name) or real(name, value, *a))
    shared = rendering.shared_regions_of(snapshot, "ru", key="lazy-1")
    assert calls == [] and set(shared.regions) == set(rendering.SHARED) and set(shared.panels) == set(range(6))
    first = shared.panels[3]
    assert shared.panels[3] is first and calls == ["seat"]
    assert 'data-seat="3"' in first


def test_issue21_speed_a_fragment_seen_before_is_not_rendered_again(monkeypatch):
    panel = {"seat": 2, "name": "ann", "count": 1, "backs": range(1), "is_me": False, "known": [], "place": None}
    with translation.override("en"):
        first = rendering.fragment("seat", panel)
        monkeypatch.setattr(rendering, "Context", None)  # a render now would fail
        assert rendering.fragment("seat", dict(panel)) == first
        monkeypatch.undo()
        # True is not 1 to a template that prints it: another value, another render
        other = rendering.fragment("seat", {**panel, "count": True})
        assert ">True<" in other and ">1<" in first
    with translation.override("ru"):
        assert rendering.fragment("seat", panel) != first  # (the language is part of the key)
