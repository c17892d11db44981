"""Issue 21, point 1: the live table's markup lives in templates only, and an update
sends only what changed for its viewer.

state.html's partials serve the page and the socket. The regions every viewer sees
alike are rendered once per group message and language from the spectator's
context (`rendering.shared_regions_of`) and may hold only what a spectator may
see; each socket sends the regions whose HTML changed since its last frame,
`#table-meta`, and only the new log lines.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from games import engine, extensions, positions
from games.table import presenters, rendering
from tests.support.snapshots import card_codes, snapshot_for, visible_now
from tests.table.test_fast_rendering import NOW, random_tables, viewers

SWAPPED_ID = re.compile(r'<[a-z]+[^>]* id="([\w-]+)"[^>]*hx-swap-oob="true"')


def spectator_context(snapshot, language):
    with translation.override(language):
        return presenters.table_context(snapshot, None, (), now=NOW)


def context_of(snapshot, seat, events, viewer_id, shared=None, language="en"):
    with translation.override(language):
        return presenters.table_context(
            snapshot, seat, events, viewer_id=viewer_id, now=NOW, spectator=shared.context if shared else None
        )


def test_issue21_the_shared_regions_hold_only_what_a_spectator_may_see():
    for i, (snapshot, _events) in enumerate(random_tables(100, seed=32)):
        position = positions.shared_position(snapshot["game"]["state_json"])
        public = visible_now(position, None)
        for language in ("ru", "en"):
            shared = rendering.shared_regions_of(snapshot, language, key=f"spectator-{i}")
            text = "".join(shared.regions.values())
            assert set(shared.regions) == set(rendering.SHARED)
            assert card_codes(text) <= public
            assert "data-action" not in text and "csrfmiddlewaretoken" not in text
            assert "my-turn" not in text and "t-hand" not in text and 'data-target="1"' not in text


def test_issue21_a_hand_never_lands_in_the_shared_regions():
    rules = engine.Rules(players=2)
    position = engine.Game.from_layout(
        rules, hands=[["6S", "7S", "8H"], ["6H", "9S", "10S"]], stock=["8S", "9H", "10C"], attacker=0
    )
    position.act(0, "attack 6S")  # seat 1 may cover 6S: his pairs are his own
    snapshot = snapshot_for(position)
    shared = rendering.shared_regions_of(snapshot, "en", key="a-hand")
    assert card_codes("".join(shared.regions.values())) == {"6S", "10C"}  # the attack card, the face-up trump
    for seat, hand, other in [(1, {"6H", "9S", "10S"}, {"6S", "7S", "8H"}), (0, {"6S", "7S", "8H"}, {"9S", "10S"})]:
        view = rendering.LiveView("en")
        view.full(context_of(snapshot, None, (), None))  # what the page showed before he sat down
        frame = view.update(context_of(snapshot, seat, (), 100 + seat, shared), shared)
        assert hand - {"6S"} <= card_codes(frame) and not card_codes(frame) & (other - {"6S"})
        assert ('data-target="1"' in frame) == (seat == 1)


def test_issue21_an_update_brings_the_page_to_the_full_render_of_the_new_state():
    """Applying a frame's regions to what the socket showed gives, region by region,
    what a fresh render of the new state shows; the unchanged regions are not sent."""
    checked = sent = 0
    tables = list(random_tables(40, seed=41))
    for i, ((before, events_before), (after, events_after)) in enumerate(zip(tables, tables[1:])):
        for seat, viewer_id in viewers(after):
            if seat is not None and seat >= before["table"]["seats_count"]:
                continue
            view = rendering.LiveView("en", "csrf-token-1")
            view.full(context_of(before, seat, events_before, viewer_id))
            shown = dict(view.regions)
            shared = rendering.shared_regions_of(after, "en", key=f"update-{i}")
            context = context_of(after, seat, events_after, viewer_id, shared)
            frame = view.update(context, shared)
            with translation.override("en"):
                names = rendering.region_names(context)
                fresh = rendering.render_regions(rendering.decorated(context), names, "csrf-token-1")
            assert view.regions == fresh
            swapped = set(SWAPPED_ID.findall(frame))
            for name, html in fresh.items():
                region_id = SWAPPED_ID.search(html).group(1)
                assert (region_id in swapped) == (name == "meta" or html != shown[name]), name
            assert 'id="table-state"' not in frame
            checked += 1
            sent += len(swapped)
    assert checked > 150 and sent < checked * len(rendering.REGIONS)


def test_issue21_a_seat_whose_regions_did_not_change_gets_only_the_shared_ones():
    snapshot, events = next(random_tables(1, seed=42))
    view = rendering.LiveView("ru", "csrf")
    shared = rendering.shared_regions_of(snapshot, "ru", key="same-1")
    view.full(context_of(snapshot, 0, events, 100, language="ru"))
    frame = view.update(context_of(snapshot, 0, events, 100, shared, language="ru"), shared)
    assert SWAPPED_ID.findall(frame) == ["table-meta"] and "data-moves=" in frame


def test_issue21_new_log_lines_are_added_alone():
    rules = engine.Rules(players=2)
    position = engine.Game.from_layout(
        rules, hands=[["6S", "7S", "8H"], ["6H", "9S", "10S"]], stock=["8S", "9H", "10C"], attacker=0
    )
    events = [{"type": "deal", "visible_to": None}]
    before = snapshot_for(position)
    view = rendering.LiveView("en")
    view.full(context_of(before, 1, events, 101))
    events = events + position.act(0, "attack 6S")
    after = snapshot_for(position)
    shared = rendering.shared_regions_of(after, "en", key="log-1")
    frame = view.update(context_of(after, 1, events, 101, shared), shared)
    assert 'id="table-log"' not in frame
    added = frame.split('<ol id="table-log-lines" hx-swap-oob="afterbegin">')[1]
    assert added.count("<li>") == 1 and "6S" in added


def test_one_render_per_group_message_and_language():
    snapshot, _events = next(random_tables(1, seed=33))
    calls = []
    real = presenters.table_context

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(presenters, "table_context", counting)
        first = rendering.shared_regions_of(snapshot, "ru", key="message-1")
        assert rendering.shared_regions_of(snapshot, "ru", key="message-1") is first
        assert rendering.shared_regions_of(snapshot, "en", key="message-1") is not first
    assert calls == [None, None]  # the spectator's context, once per language


def test_the_cache_of_shared_parts_is_bounded():
    snapshot, _events = next(random_tables(1, seed=34))
    for i in range(rendering.SHARED_CACHE_SIZE + 50):
        rendering.shared_regions_of(snapshot, "ru", key=f"bounded-{i}")
    assert rendering.shared_parts_kept() == rendering.SHARED_CACHE_SIZE


# ---------------------------------------------------------------- one source, honest walls


def test_issue21_the_table_markup_has_no_copy_in_python():
    games = Path(settings.BASE_DIR) / "games"
    for path in [*games.joinpath("table").rglob("*.py"), *games.joinpath("templatetags").rglob("*.py")]:
        text = path.read_text()
        for markup in ('class="t-', "<span", "<div", "<li"):
            assert markup not in text, (path, markup)


def test_issue21_games_templates_load_no_other_apps_tags():
    others = {"ratings", "reviews", "tournaments"}
    for path in (Path(settings.BASE_DIR) / "templates" / "games" / "table").rglob("*.html"):
        for load in re.findall(r"{%\s*load\s+([^%]*)%}", path.read_text()):
            assert not set(load.split()) & others, (path, load)


@pytest.mark.django_db
def test_issue21_the_table_page_works_without_the_ratings_app(monkeypatch):
    from django.test import override_settings

    from games.services import tables as table_services
    from tests.support.games import make_user

    users = [make_user("walls-a"), make_user("walls-b")]
    table = table_services.do_create_table(rules=engine.Rules(players=2), seat_users=users, start=True)
    monkeypatch.setattr(extensions, "_seat_marks", [])
    monkeypatch.setattr(extensions, "_game_notes", [])
    apps_left = [name for name in settings.INSTALLED_APPS if name != "ratings"]
    with override_settings(INSTALLED_APPS=apps_left):
        client = Client()
        client.force_login(users[0])
        response = client.get(f"/table/{table.pk}/")
    assert response.status_code == 200
    assert 'id="table-state"' in response.content.decode()
