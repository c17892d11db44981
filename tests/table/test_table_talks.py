"""Issue 17, point 5: the table says what happened.

A player who took shows «Берёт» until the bout ends; the status names the button
shown («Пас» after a take, «Бито» otherwise); a move the clock made says so in the
log and at that seat; the result panel never calls a game with a leaver a draw for
him; «Беру», «Бито», «Пас» and «Перевод» are bubbles at the seat that said them
(the region `said`); a card that cannot be played says why; refusals are a toast
next to the hand; emotes and quick phrases are a fixed list sent over the socket,
rate-limited, and never reach a player who muted them (at that table or everywhere).
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.utils import translation

from games import engine, positions
from games.models import Game, Profile, TableSeat
from games.selectors import table_snapshot
from games.services import emotes, notify, play
from games.table import presenters, rendering
from tests.support import sockets
from tests.support.games import latest_game, make_user, new_table, two_player_rules
from tests.support.snapshots import card_codes, snapshot_for
from tests.table.test_fast_rendering import NOW, random_tables, viewers

SAID_RE = re.compile(r'<span class="t-bubble t-said-(\w+)" data-seat="(\d+)" data-key="[\d-]+">([^<]*)</span>')
BUBBLE_RE = re.compile(r'<span class="t-bubble t-emote" data-seat="(\d+)">([^<]*)</span>')


def context_of(snapshot, seat, events=(), language="ru"):
    with translation.override(language):
        return presenters.table_context(
            snapshot, seat, list(events), viewer_id=None if seat is None else 100 + seat, now=NOW
        )


def region(context, name, language="ru"):
    with translation.override(language):
        return rendering.render_regions(rendering.decorated(context), (name,))[name]


class Bout:
    """A two-player bout played move by move, with the events a socket would hold."""

    def __init__(self, hands, stock, rules=None, attacker=0):
        self.position = engine.Game.from_layout(
            rules or engine.Rules(players=len(hands)), hands=hands, stock=stock, attacker=attacker
        )
        self.events = [{"type": "deal", "visible_to": None}]
        self.moves = 0

    def act(self, seat, action):
        self.events += self.position.act(seat, action)
        self.moves += 1
        return self

    def snapshot(self):
        snapshot = snapshot_for(self.position)
        snapshot["game"]["move_count"] = self.moves
        return snapshot

    def context(self, seat, language="ru"):
        return context_of(self.snapshot(), seat, self.events, language)


def took():
    """Seat 0 attacks with 6S, seat 1 takes: seat 0 may throw in 6H or say «Пас»."""
    bout = Bout(hands=[["6S", "6H", "9D"], ["7D", "8D", "9H"]], stock=["8S", "9S", "10C"])
    return bout.act(0, "attack 6S").act(1, "take")


# ------------------------------------------------------------------ the words of the felt


def test_issue17_a_player_who_took_shows_takes_until_the_bout_ends():
    bout = took()
    for seat in (None, 0, 1):
        panels = {p["seat"]: p for p in bout.context(seat)["panels"]}
        assert panels[1]["role_label"] == "Берёт", seat
    html = region(bout.context(0), "seats_top")
    assert "Берёт" in html and "Отбивается" not in html
    bout.act(0, "pass")  # «Пас»: the bout ends, seat 1 picks up
    assert all(p["role_label"] != "Берёт" for p in bout.context(None)["panels"])


def test_issue17_the_status_names_the_button_that_is_shown():
    bout = took()
    context = bout.context(0)
    labels = [b["label"] for b in context["buttons"]]
    assert labels == ["Пас"]
    assert context["status_text"] == "Ваш ход: подкиньте или скажите «Пас»"
    html = region(context, "status") + region(context, "bottom")
    assert "Бито" not in html
    covered = Bout(hands=[["6S", "7C"], ["7S", "8D"]], stock=["8S", "9S", "10C"]).act(0, "attack 6S")
    covered.act(1, "defend 6S with 7S")
    context = covered.context(0)
    assert [b["label"] for b in context["buttons"]] == ["Бито"]
    assert context["status_text"] == "Ваш ход: подкиньте или скажите «Бито»"


def test_issue17_whenever_a_pass_button_is_shown_the_status_says_its_word():
    for snapshot, events in random_tables(120, seed=1717):
        for seat, _viewer in viewers(snapshot)[2:]:
            context = context_of(snapshot, seat, events)
            passes = [b["label"] for b in context["buttons"] if b["kind"] == "pass"]
            if passes:
                assert f"«{passes[0]}»" in context["status_text"], (passes, context["status_text"])


def test_issue17_a_draw_with_a_leaver_is_no_draw_for_him():
    position = engine.Game.from_layout(
        engine.Rules(players=3), hands=[["6S"], ["7S"], ["8S"]], stock=[], attacker=0, trump="H"
    )
    snapshot = snapshot_for(
        position,
        names=["anna", "boris", "vera"],
        status="finished",
        result={"draw": True, "durak": None, "losers": [], "places": {"0": 1, "1": 1, "2": 2}},
    )
    snapshot["game"]["seats"][2].update(abandoned=True, autopilot=True)
    for seat in (None, 0, 2):
        with translation.override("ru"):
            html = rendering.live_fragments(context_of(snapshot, seat), "ru")
        result = html[html.index('id="t-result"') : html.index('id="t-resign"')]
        # vera chose no gender, and a Latin name needs no case: words without either
        assert "Последнее место за выход из игры: vera. Среди остальных дурака нет." in result
        assert "Ничья" not in result and "ничья" not in result
    snapshot["game"]["seats"][2].update(abandoned=False, autopilot=False)
    with translation.override("ru"):
        html = rendering.live_fragments(context_of(snapshot, None), "ru")
    assert "Ничья: дурака нет." in html and "последн" not in html


# ------------------------------------------------------------------ bubbles at the seats


def said(context):
    return [(kind, int(seat), text) for kind, seat, text in SAID_RE.findall(region(context, "said"))]


def test_issue17_take_and_pass_are_bubbles_at_the_seat_that_said_them():
    bout = took()
    assert said(bout.context(None)) == [("take", 1, "Беру")]
    bout.act(0, "pass")
    assert ("pass_after_take", 0, "Пас") in said(bout.context(1))
    covered = Bout(hands=[["6S", "7C"], ["7S", "8D"]], stock=["8S", "9S", "10C"]).act(0, "attack 6S")
    covered.act(1, "defend 6S with 7S").act(0, "pass")
    assert said(covered.context(0)) == [("pass", 0, "Бито")]


def test_issue17_a_transfer_is_a_bubble_and_a_card_played_since_ends_the_words():
    rules = engine.Rules(variant="perevodnoy", players=3)
    bout = Bout(hands=[["6S", "9C"], ["6H", "QC"], ["KD", "KC"]], stock=["8S", "9S", "10C"], rules=rules)
    bout.act(0, "attack 6S").act(1, "transfer 6H")
    assert said(bout.context(2)) == [("transfer", 1, "Перевод")]
    assert said(bout.context(2, "en")) == [("transfer", 1, "Transfer")]


def test_issue17_a_new_declaration_is_sent_live_as_the_said_region():
    bout = Bout(hands=[["6S", "6H", "9D"], ["7D", "8D", "9H"]], stock=["8S", "9S", "10C"]).act(0, "attack 6S")
    view = rendering.LiveView("ru")
    view.full(bout.context(0))
    bout.act(1, "take")
    snapshot = bout.snapshot()
    shared = rendering.shared_regions_of(snapshot, "ru", key="talk-take")
    with translation.override("ru"):
        context = presenters.table_context(snapshot, 0, bout.events, viewer_id=100, now=NOW, spectator=shared.context)
    frame = view.update(context, shared)
    assert re.search(
        r'<div class="t-said" id="t-said" hx-swap-oob="true"[^>]*><span[^>]*data-seat="1"[^>]*>Беру<', frame
    )
    again = view.update(context, shared)  # nothing new said: the region is not sent again
    assert 'id="t-said"' not in again


def test_issue17_the_declarations_hold_no_card():
    for snapshot, events in random_tables(60, seed=1718):
        snapshot["game"]["move_count"] = sum(1 for e in events if e.get("type") in presenters.talk.MOVE_EVENTS)
        for seat, _viewer in viewers(snapshot):
            html = region(context_of(snapshot, seat, events), "said")
            assert not card_codes(html), html


# ------------------------------------------------------------------ cards that cannot be played


def test_issue17_a_card_that_cannot_be_played_says_why():
    bout = took()
    with translation.override("ru"):
        hand = bout.context(0)["hand"]
        html = region(bout.context(0), "bottom")
    unplayable = [c for c in hand if not c["playable"]]
    assert [c["code"] for c in unplayable] == ["9D"]
    assert unplayable[0]["why"] == "Подкинуть можно только карту того же достоинства, что уже на столе."
    card = re.search(r'<button type="button" class="t-card[^"]*" data-card="9D"[^>]*>', html).group(0)
    assert 'aria-disabled="true"' in card and " disabled" not in card
    assert 'data-why="Подкинуть можно только' in card and 'title="9♦: Подкинуть' in card
    waiting = bout.context(1)  # the taker waits for the throw-ins
    assert {c["why"] for c in waiting["hand"]} == {"Сейчас не ваш ход: подождите своей очереди."}
    defending = Bout(hands=[["KS", "7C"], ["7S", "8D"]], stock=["8S", "9S", "10C"]).act(0, "attack KS")
    assert {c["why"] for c in defending.context(1)["hand"]} == {"Эта карта не бьёт ни одну карту на столе."}


# ------------------------------------------------------------------ the clock that moved for you


@pytest.mark.django_db
def test_issue17_a_move_the_clock_made_says_so_in_the_log_and_at_that_seat():
    anna, boris = make_user("anna"), make_user("boris")
    table = new_table(two_player_rules(), [anna, boris], turn_seconds=30)
    game = latest_game(table)
    (opener,) = positions.position_of(game).to_move()
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1
    snapshot = table_snapshot(table.pk)
    events, _moves = positions.recent_events(game.pk, upto=snapshot["game"]["move_count"])
    name = ["anna", "boris"][opener]
    for language, note, line in [
        ("ru", "Время вышло: карта сыграна за вас.", f"<b>{name}</b>: время вышло, ход сделан за игрока"),
        ("en", "Time ran out: a card was played for you.", f"<b>{name}</b>: time ran out, the move was made"),
    ]:
        mine = context_of(snapshot, opener, events, language)
        assert mine["timeout_note"] == note
        assert note in region(mine, "status", language)
        assert any(line in entry for entry in mine["log"])
        other = context_of(snapshot, 1 - opener, events, language)
        assert other["timeout_note"] == "" and any(line in entry for entry in other["log"])
    # His own move next time: the note goes.
    defender = 1 - opener
    play.do_player_move(game_id=game.pk, user=[anna, boris][defender], action="take", expected_seat=defender)
    position = positions.position_of(Game.objects.get(pk=game.pk))
    action = str(position.legal_actions(opener)[0])
    play.do_player_move(game_id=game.pk, user=[anna, boris][opener], action=action, expected_seat=opener)
    snapshot = table_snapshot(table.pk)
    events, _moves = positions.recent_events(game.pk, upto=snapshot["game"]["move_count"])
    assert context_of(snapshot, opener, events)["timeout_note"] == ""


@pytest.mark.django_db
def test_issue17_the_clock_taking_for_you_says_the_cards_were_taken():
    anna, boris = make_user("anna"), make_user("boris")
    table = new_table(two_player_rules(), [anna, boris], turn_seconds=30)
    game = latest_game(table)
    (opener,) = positions.position_of(game).to_move()
    position = positions.position_of(game)
    attack = next(str(a) for a in position.legal_actions(opener) if str(a).startswith("attack"))
    play.do_player_move(game_id=game.pk, user=[anna, boris][opener], action=attack, expected_seat=opener)
    game = Game.objects.get(pk=game.pk)
    assert play.do_advance_game(game_id=game.pk, now=game.deadline) == 1
    snapshot = table_snapshot(table.pk)
    events, _moves = positions.recent_events(game.pk, upto=snapshot["game"]["move_count"])
    assert context_of(snapshot, 1 - opener, events)["timeout_note"] == "Время вышло: карты взяты за вас."
    assert context_of(snapshot, opener, events)["timeout_note"] == ""


# ------------------------------------------------------------------ the page: toast, sounds, motion


@pytest.mark.django_db
def test_issue17_the_page_has_the_toast_the_sounds_and_the_motion():
    anna, boris = make_user("anna"), make_user("boris")
    table = new_table(two_player_rules(), [anna, boris])
    client = Client(headers={"accept-language": "ru"})
    client.force_login(anna)
    html = client.get(f"/table/{table.pk}/").content.decode()
    assert "css/talk.css" in html and "js/talk.js" in html
    assert re.search(r'<div id="table-error" class="t-error t-toast', html)
    assert 'id="t-emotes"' in html and 'id="t-hint"' in html and 'id="t-said"' in html
    assert "Хороший ход!" in html and "Без эмоций за этим столом" in html and "Без эмоций везде" in html
    anonymous = Client(headers={"accept-language": "ru"}).get(f"/table/{table.pk}/")
    assert anonymous.status_code == 200 and 'id="t-talk"' not in anonymous.content.decode()
    static = Path(settings.BASE_DIR) / "static"
    script = (static / "js" / "talk.js").read_text()
    assert "AudioContext" in script and "localStorage" in script and "durak-sound" in script
    assert not re.search(r"\.(mp3|ogg|wav)\b|https?://", script)
    style = (static / "css" / "talk.css").read_text()
    assert "prefers-reduced-motion: no-preference" in style and "prefers-reduced-motion: reduce" in style
    for name in ("t-deal", "t-flight", "t-bubble"):
        assert f"@keyframes {name}" in style
        # every animation of these runs only where motion is welcome
        uses = re.findall(rf"animation: {name}\b", style)
        motion = style.split("@media (prefers-reduced-motion: no-preference)")[1].split("@media")[0]
        assert uses and len(re.findall(rf"animation: {name}\b", motion)) == len(uses)
    # On by default on the table page: only an explicit "off" mutes it.
    assert '!== "off"' in (static / "js" / "table.js").read_text()


# ------------------------------------------------------------------ emotes over the socket


@database_sync_to_async
def seated_table(names, watchers=()):
    cache.clear()  # (the emote rate is counted in the cache)
    users = [make_user(n) for n in names]
    table = new_table(engine.Rules(players=len(users)), users)
    return table, users, [make_user(n) for n in watchers]


async def connected(table_id, user):
    communicator, first = await sockets.connect_table(table_id, await sockets.session_cookie(user))
    return communicator


async def frames_until(communicator, seen) -> list[str]:
    """The socket's frames up to the first one `seen` accepts: waits for that event
    (the timeout only ends a test that would otherwise hang)."""
    frames = [await communicator.receive_from(timeout=sockets.FRAME_TIMEOUT * 4)]
    while not seen(frames[-1]):
        frames.append(await communicator.receive_from(timeout=sockets.FRAME_TIMEOUT * 4))
    return frames


async def settled(table_id, *communicators) -> list[list[str]]:
    """Each socket's frames until everything the table's group was sent so far has reached it.

    A mark goes to the group by the route every emote takes (after commit, through
    the channel layer); a socket reads its group's messages one at a time in order,
    so whatever was sent before the mark (an emote, a mute) is in its frames before
    the mark, and a socket that got no emote by then gets none from it."""
    mark = f"mark-{uuid.uuid4().hex}"
    line = {"id": 0, "name": "mark", "text": mark, "created_at": "2026-01-01T00:00:00+00:00"}
    await sync_to_async(notify.chat_posted)(table_id, line)
    return [[f for f in await frames_until(c, lambda frame: mark in frame) if mark not in f] for c in communicators]


async def bubbles(table_id, communicator) -> list[tuple[int, str]]:
    """The emote bubbles the socket got of everything sent to the table so far."""
    (frames,) = await settled(table_id, communicator)
    return [(int(s), t) for f in frames for s, t in BUBBLE_RE.findall(f)]


async def answer(communicator) -> str:
    """The socket's answer to its last frame (every frame gets one, `#table-error`)."""
    return sockets.error_text((await frames_until(communicator, lambda frame: 'id="table-error"' in frame))[-1])


def send(communicator, **fields):
    return communicator.send_to(text_data=sockets.frame(**fields))


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_issue17_an_emote_is_a_bubble_at_the_senders_seat_for_everyone():
    table, (anna, boris), (vera,) = await seated_table(["anna", "boris"], ["vera"])
    a, b, v = [await connected(table.pk, u) for u in (anna, boris, vera)]
    try:
        await send(a, emote="good_move", table=str(table.pk))
        answered = await frames_until(a, lambda frame: 'id="table-error"' in frame)
        assert sockets.error_text(answered[-1]) == ""
        assert await bubbles(table.pk, b) == [(0, "Хороший ход!")]
        assert await bubbles(table.pk, v) == [(0, "Хороший ход!")]
        (frames,) = await settled(table.pk, a)
        assert [BUBBLE_RE.findall(f) for f in answered + frames if "t-emote" in f] == [[("0", "Хороший ход!")]]
        await send(b, emote="wow")
        assert await answer(b) == ""
        assert await bubbles(table.pk, a) == [(1, "😮")] and await bubbles(table.pk, b) == [(1, "😮")]
        await settled(table.pk, v)
        # Never free text, never an unknown one: a translated refusal, nothing sent.
        for wrong in ("hello everyone", "<b>x</b>", "", ["thanks"], {"x": 1}):
            await send(a, emote=wrong)
            assert await answer(a) == "Такой эмоции нет: выберите из списка."
        assert await bubbles(table.pk, b) == [] and await bubbles(table.pk, v) == []
        # A spectator has no seat to show it at.
        await send(v, emote="thanks")
        assert await answer(v) == "Эмоции отправляют только игроки за этим столом."
        assert await bubbles(table.pk, a) == []
    finally:
        for c in (a, b, v):
            await c.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_issue17_emotes_are_rate_limited_per_player():
    table, (anna, boris), _ = await seated_table(["anna", "boris"])
    a, b = await connected(table.pk, anna), await connected(table.pk, boris)
    try:
        for key in ("thanks", "oops", "good_luck"):
            await send(a, emote=key)
            assert await answer(a) == ""
        await send(a, emote="thumbs_up")
        assert await answer(a) == "Вы отправляете эмоции слишком часто: не больше 3 за 10 с."
        assert [t for _s, t in await bubbles(table.pk, b)] == ["Спасибо", "Ой", "Удачи"]
        await send(b, emote="thumbs_up")  # another player's own count
        assert await answer(b) == ""
        assert await bubbles(table.pk, a) == [(1, "👍")]
    finally:
        await a.disconnect()
        await b.disconnect()


@database_sync_to_async
def mutes_of(user, table_id):
    seat = TableSeat.objects.get(table_id=table_id, user=user)
    return seat.emotes_muted, Profile.objects.get(user=user).emotes_muted


def shows_unmute_here(frame: str) -> bool:
    return 'id="t-talk"' in frame and "Показывать эмоции за этим столом" in frame


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_issue17_a_player_who_mutes_at_the_table_never_gets_an_emote():
    table, (anna, boris, vera), _ = await seated_table(["anna", "boris", "vera"])
    a, b, v = [await connected(table.pk, u) for u in (anna, boris, vera)]
    b2 = await connected(table.pk, boris)  # his second tab follows the mute
    try:
        await send(b, mute_emotes="table", muted="1")
        answered = await frames_until(b, lambda frame: 'id="table-error"' in frame)
        assert sockets.error_text(answered[-1]) == ""
        assert any(shows_unmute_here(f) for f in answered)
        assert any(shows_unmute_here(f) for f in (await settled(table.pk, b2))[0])
        assert await mutes_of(boris, table.pk) == (True, False)
        await send(a, emote="thanks")
        assert await answer(a) == ""
        assert await bubbles(table.pk, b) == [] and await bubbles(table.pk, b2) == []
        assert await bubbles(table.pk, v) == [(0, "Спасибо")]
        # A socket opened after the mute knows it too, and so does the page.
        b3 = await connected(table.pk, boris)
        await send(v, emote="oops")
        assert await answer(v) == ""
        assert await bubbles(table.pk, b3) == []
        await b3.disconnect()
        page = await database_sync_to_async(page_of)(boris, table.pk)
        assert "Показывать эмоции за этим столом" in page
        # Unmuted: they come again.
        await send(b, mute_emotes="table", muted="0")
        assert await answer(b) == ""
        await send(a, emote="good_luck")
        assert await answer(a) == ""
        assert await bubbles(table.pk, b) == [(0, "Удачи")] and await bubbles(table.pk, b2) == [(0, "Удачи")]
        # A malformed mute changes nothing.
        await send(b, mute_emotes="somewhere", muted="1")
        assert await answer(b) == "Неверное сообщение: эмоции отключаются за этим столом или везде."
        assert await mutes_of(boris, table.pk) == (False, False)
    finally:
        for c in (a, b, b2, v):
            await c.disconnect()


def page_of(user, table_id):
    client = Client(headers={"accept-language": "ru"})
    client.force_login(user)
    return client.get(f"/table/{table_id}/").content.decode()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_issue17_a_player_who_mutes_everywhere_gets_none_at_any_table():
    table, (anna, boris), _ = await seated_table(["anna", "boris"])
    carl = await make_async("carl")
    other = await database_sync_to_async(new_table)(engine.Rules(players=2), [carl, boris], start=False)
    a, b = await connected(table.pk, anna), await connected(table.pk, boris)
    try:
        await send(b, mute_emotes="everywhere", muted="1")
        answered = await frames_until(b, lambda frame: 'id="table-error"' in frame)
        assert sockets.error_text(answered[-1]) == ""
        assert any("Показывать эмоции везде" in f for f in answered)
        assert await mutes_of(boris, table.pk) == (False, True)
        await send(a, emote="thanks")
        assert await answer(a) == ""
        assert await bubbles(table.pk, b) == []
        assert await bubbles(table.pk, a) == [(0, "Спасибо")]
        # At another table, on a socket opened later, muted too.
        bo, c = await connected(other.pk, boris), await connected(other.pk, carl)
        await send(c, emote="wow")
        assert await answer(c) == ""
        assert await bubbles(other.pk, bo) == [] and await bubbles(other.pk, c) == [(0, "😮")]
        await bo.disconnect()
        await c.disconnect()
    finally:
        await a.disconnect()
        await b.disconnect()


make_async = database_sync_to_async(make_user)


def test_issue17_the_emotes_are_a_fixed_translated_list():
    with translation.override("ru"):
        texts = [e["text"] for e in emotes.emote_choices()]
    assert texts == ["Хороший ход!", "Спасибо", "Ой", "Удачи", "👍", "😮"]
    with translation.override("en"):
        assert emotes.emote_text("thanks") == "Thanks" and emotes.emote_text("free text") == ""
