"""Ratings at a live table, whose socket renders on the event loop: the badges and the
chances are read once per render by the table's providers (games.extensions), in a
worker thread before the render, and the render itself reads nothing. One way, the
page's and the socket's alike."""

from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from games import engine
from games import selectors as game_selectors
from games.services import tables as table_services
from games.table import consumers, presenters, rendering
from ratings import selectors, services
from tests.ratings.helpers import finished_game, people

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@database_sync_to_async
def rated_table(rated=True):
    """anna beat boris twice (both provisional); now they sit at a table, its game not started."""
    anna, boris = people("anna", "boris")
    for _ in range(2):
        finished_game([(anna, 1), (boris, 2)])
    services.recompute("podkidnoy")
    table = table_services.do_create_table(
        rules=engine.Rules(players=2), host=anna, seat_users=[anna, boris], rated=rated, start=True
    )
    shown = selectors.ratings_for([anna.pk, boris.pk], "podkidnoy")
    return game_selectors.table_snapshot(table.pk), anna.pk, shown


def watched(monkeypatch, name):
    """Record where `selectors.<name>` is called from: on the event loop or not."""
    read = getattr(selectors, name)
    calls = []

    def recorded(*args):
        try:
            asyncio.get_running_loop()
            calls.append("on the loop")
        except RuntimeError:
            calls.append("in a worker thread")
        return read(*args)

    monkeypatch.setattr(selectors, name, recorded)
    return calls


async def test_a_sockets_ratings_and_chances_are_read_in_a_worker_thread(monkeypatch):
    snapshot, anna, shown = await rated_table()
    ratings, chances = watched(monkeypatch, "ratings_for"), watched(monkeypatch, "game_chance_rows")

    extras = await consumers._extras(None, snapshot, "ru")

    assert ratings == ["in a worker thread"] and chances == ["in a worker thread"]
    assert {user: mark["text"] for user, mark in extras["marks"].items()} == shown
    assert all(text.endswith("?") for text in shown.values())  # two games: both provisional
    assert "Шанс остаться дураком" in "".join(extras["game_notes"])


async def test_with_them_read_the_render_on_the_loop_asks_nobody(monkeypatch):
    snapshot, anna, shown = await rated_table()
    extras = await consumers._extras(None, snapshot, "ru")

    def no_read(*args):
        raise AssertionError("the render asked the providers on the event loop")

    monkeypatch.setattr(rendering, "extras_of", no_read)
    seat = next(s["number"] for s in snapshot["seats"] if s["user_id"] == anna)
    html = rendering.live_fragments(presenters.table_context(snapshot, seat, [], viewer_id=anna), "ru", extras=extras)

    about = re.escape(reverse("ratings:about"))
    for text in shown.values():  # the same badge the page shows
        assert re.search(rf'<a class="rating-badge provisional" href="{about}"[^>]*>{re.escape(text)}</a>', html)
    assert "Шанс остаться дураком" in html


async def test_an_unrated_table_reads_no_ratings(monkeypatch):
    snapshot, _anna, _shown = await rated_table(rated=False)
    ratings = watched(monkeypatch, "ratings_for")

    extras = await consumers._extras(None, snapshot, "ru")

    assert ratings == [] and extras == {"marks": {}, "game_notes": []}
