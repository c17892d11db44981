"""The live table: one consumer per browser connection.

On connect the socket joins the table's group and gets the full current state
(a reconnecting browser is back in sync). Every `table.changed` message of the
group carries a snapshot; each consumer renders ONLY its own seat's view of it
(`presenters.table_context` reads the state through `Game.view(seat)`), with no
database query. Frames from the browser (htmx ws extension: the form fields as
JSON plus a "HEADERS" dict) are validated here and passed to ONE service call.

Client → server frames (JSON objects):
    {"action": "attack 6S", "seat": "0", "table": "12", "game": "34"}
        seat, table and game are optional; when present they must be this
        socket's seat, table and current game.
    {"chat": "hello"}
    {"emote": "thanks"}                         (a key of games.services.emotes.EMOTES)
    {"mute_emotes": "table" | "everywhere", "muted": "1" | "0"}
    {"heartbeat": "here" | "away"}              (the page's heartbeat: games.table.heartbeat)
Server → client frames: HTML, top-level elements with `hx-swap-oob` (see
`games.table.rendering`): the whole `#table-state` + `#table-log` on connect and
re-sync; after a change only the regions of the state that changed for this
viewer, `#table-meta` and the new log lines (the regions every seat sees alike
rendered once per change, process and language: `rendering.shared_regions_of`),
`#table-error` after every frame (empty when accepted: then it comes in the
same frame as the state that shows the move), and chat lines
appended to `#chat-messages` (on connect: the whole recent chat).

Every frame gets an answer (`#table-error`, empty when accepted; a heartbeat's is
`heartbeat.ANSWER`) and leaves the socket open, however malformed it is. A socket
that has sent a heartbeat and then falls silent is closed: its player's network is
gone (games.table.heartbeat).

A group message is only a nudge: a socket that missed one (a failed notification)
catches up when one of its actions is refused and on its periodic re-sync (`TABLE_RESYNC_SECONDS`), which
re-reads the snapshot and the chat from the database.
"""

import asyncio
import json
import logging
from collections import OrderedDict, deque

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import pgettext

from games import permissions
from games.errors import Refusal
from games.positions import recent_events
from games.scope import language_of
from games.selectors import emote_mutes, recent_chat, table_snapshot
from games.services import chat, emotes, notify, presence
from games.services.play import do_player_move

from . import heartbeat, presenters, rendering

log = logging.getLogger(__name__)

MAX_FRAME = 4096
MAX_ACTION = 64
EVENT_MEMORY = 60
RESYNC_SECONDS = 20  # default of settings.TABLE_RESYNC_SECONDS (0: no periodic re-sync)
GROUP_MESSAGES = frozenset({"table.changed", "table.chat", "table.emote", "table.emote_mutes"})  # (read no database)
ANSWER_WAIT = 1.0  # seconds an accepted action's answer waits for the state frame it rides on
CLAIM_RENDER_SLACK = 0.25  # seconds after a claim opens that the socket re-renders (the server's clock decides)


def _frame_data(text_data):
    """The frame's JSON object, or the refusal text for a frame that is not one."""
    if text_data is None:
        return None, pgettext("table", "Malformed message: send a JSON text frame.")
    if len(text_data) > MAX_FRAME:
        return None, pgettext("table", "Malformed message: it is too long.")
    try:
        data = json.loads(text_data)
        # "\ud800" is valid JSON but no text: it could not be stored or sent back.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):  # (deep nesting; UnicodeError is a ValueError)
        return None, pgettext("table", "Malformed message: it is not JSON.")
    if not isinstance(data, dict):
        return None, pgettext("table", "Malformed message: expected a JSON object.")
    for key in ("table", "seat", "game"):
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
            return None, pgettext("table", "Malformed message: the seat, table and game are numbers.")
    return data, ""


class TableConsumer(AsyncWebsocketConsumer):
    async def dispatch(self, message):
        """Channels' dispatch, without its `aclose_old_connections()` before the group's
        messages. That call is a trip to the one thread that runs this process's database
        work, queued behind the moves being written: for a table of six, six trips per
        move, for handlers that read no database (the snapshot comes in the message).
        The socket's own events (connect, frames, disconnect) keep it."""
        if message["type"] not in GROUP_MESSAGES:
            return await super().dispatch(message)
        await getattr(self, get_handler_name(message))(message)

    async def connect(self):
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        user = self.scope.get("user")
        self.user = user if user is not None and user.is_authenticated else None
        self.user_id = self.user.pk if self.user else None
        self.language = language_of(self.scope)
        self.csrf_token = (self.scope.get("cookies") or {}).get(settings.CSRF_COOKIE_NAME, "")
        self.group = notify.table_group(self.table_id)
        self.snapshot = None
        self.answer_for = None  # (game id, move count) whose state frame carries an accepted action's answer
        self.answer_timer = None
        self.claim_timer = None  # re-renders when a claim over a player gone offline opens
        self.log_memo = {}  # this socket's formatted log lines (presenters.log.log_lines)
        self.view = rendering.LiveView(self.language, self.csrf_token)  # what this socket has sent
        self.heard_at = asyncio.get_running_loop().time()  # the last frame from the browser
        self.handling = 0  # frames being handled now (a move waiting for the database is no silence)
        self.away = False  # its last heartbeat said the tab is hidden
        self.heartbeat_task = None  # watches the silence once the page has sent its first beat
        # Join first, then read: a change committed meanwhile arrives as a message.
        await self.channel_layer.group_add(self.group, self.channel_name)
        loaded = await database_sync_to_async(self._load)()
        if loaded is None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.close()  # before accept: the handshake is refused
            return
        snapshot, events, replayed, self.emote_mutes = loaded
        self._remember(snapshot)
        self.events = deque(events, maxlen=EVENT_MEMORY)
        self.replayed = (self.game_id, replayed)
        chat_lines = await database_sync_to_async(recent_chat)(self.table_id)
        self.last_chat_id = chat_lines[-1]["id"] if chat_lines else 0
        await self.accept()
        # The full picture, the chat it may have missed included: a reconnecting browser is in sync.
        await self._send_state(rendering.chat_history_fragment(chat_lines, self.language))
        period = getattr(settings, "TABLE_RESYNC_SECONDS", RESYNC_SECONDS)
        self.resync_task = asyncio.ensure_future(self._resync_every(period)) if period else None

    def _load(self):
        snapshot = table_snapshot(self.table_id)
        session = self.scope.get("session")
        invited = session.get("invited_tables", []) if session is not None else []
        if not permissions.may_watch(snapshot, self.user_id, invited):
            return None
        if self.user_id is not None and any(s.get("user_id") == self.user_id for s in snapshot.get("seats") or ()):
            presence.do_mark_seen(table_id=self.table_id, user_id=self.user_id)  # he has come to his seat
            # Back online: a disconnected player's one grace wait (games.services.clock) is his only.
            presence.do_mark_online(table_id=self.table_id, user_id=self.user_id)
        game = snapshot.get("game")
        # Only the moves the snapshot counts: the log never runs ahead of the state.
        events, replayed = recent_events(
            game["id"] if game else None, EVENT_MEMORY, upto=game["move_count"] if game else None
        )
        return snapshot, events, replayed, emote_mutes(self.table_id, self.user_id)

    async def disconnect(self, code):
        timers = ("resync_task", "answer_timer", "claim_timer", "heartbeat_task")
        for pending in (getattr(self, name, None) for name in timers):
            if pending is not None:
                pending.cancel()
        await self.channel_layer.group_discard(notify.table_group(self.table_id), self.channel_name)
        if getattr(self, "seat", None) is not None:
            try:
                await database_sync_to_async(presence.do_mark_offline)(table_id=self.table_id, user_id=self.user_id)
            except Exception:  # a closing socket must never raise: the mark only buys him a grace wait
                log.exception("table %s: could not mark seat offline", self.table_id)

    # ------------------------------------------------------------ catching up

    async def _resync_every(self, period: float):
        while True:
            await asyncio.sleep(period)
            try:
                await self._resync()
            except asyncio.CancelledError:
                raise
            except Exception:  # a database hiccup: the next round tries again
                log.exception("table %s: re-sync failed", self.table_id)

    async def _resync(self):
        """Re-read the table and its chat; send what this socket has not shown yet."""
        snapshot = await database_sync_to_async(table_snapshot)(self.table_id)
        if snapshot is not None and self.snapshot is not None and _is_news(snapshot, self.snapshot):
            game = snapshot.get("game")
            events, replayed = await database_sync_to_async(recent_events)(
                game["id"] if game else None, EVENT_MEMORY, upto=game["move_count"] if game else None
            )
            self._remember(snapshot)
            self.events = deque(events, maxlen=EVENT_MEMORY)
            self.replayed = (self.game_id, replayed)
            if self.seat is not None and str(self.user_id) in (snapshot.get("offline") or {}):
                await self._still_here()
            await self._send_state(self._answer_due(self.game_id, self.move_count))
        chat_lines = await database_sync_to_async(recent_chat)(self.table_id)
        if chat_lines and chat_lines[-1]["id"] > self.last_chat_id:
            self.last_chat_id = chat_lines[-1]["id"]
            await self.send(text_data=rendering.chat_history_fragment(chat_lines, self.language))

    # ------------------------------------------------------------ group messages

    async def table_changed(self, message):
        snapshot = message.get("snapshot")
        if not snapshot or self.snapshot is None:
            return
        game = snapshot.get("game")
        game_id = game["id"] if game else None
        moves = game["move_count"] if game else 0
        if game_id == self.game_id and moves < self.move_count:
            return  # older than what this socket already shows
        if "offline" not in snapshot and "offline" in self.snapshot:
            # (a move's snapshot does not read who is offline: a move changes nobody's presence)
            snapshot = {**snapshot, "offline": self.snapshot["offline"]}
        if "addresses" not in snapshot and "addresses" in self.snapshot:
            # (nor who is addressed how: games.selectors.addresses_of)
            snapshot = {**snapshot, "addresses": self.snapshot["addresses"]}
        if game_id != self.game_id:
            self.events = deque([{"type": "deal", "visible_to": None}], maxlen=EVENT_MEMORY)
        elif not (self.replayed[0] == game_id and moves <= self.replayed[1]):
            # (the log read at connect already holds the events of the moves it replayed)
            self.events.extend(message.get("events") or [])
        self._remember(snapshot)
        if self.seat is not None and str(self.user_id) in (snapshot.get("offline") or {}):
            # He closed another tab of this table, and this one is still open: he is here.
            asyncio.ensure_future(self._still_here())
        await self._send_state(self._answer_due(game_id, moves), key=message.get("key"))

    async def _still_here(self):
        try:
            await database_sync_to_async(presence.do_mark_online)(table_id=self.table_id, user_id=self.user_id)
        except Exception:  # the next message or re-sync tries again
            log.exception("table %s: could not mark seat online", self.table_id)

    async def table_chat(self, message):
        line_id = message["message"].get("id") or 0
        if line_id and line_id <= self.last_chat_id:
            return  # a re-sync already brought it with the whole chat
        self.last_chat_id = max(self.last_chat_id, line_id)
        await self.send(text_data=rendering.chat_fragment(message["message"], self.language))

    async def table_emote(self, message):
        # A muted player's socket never sends him one (muted at send time, or since).
        if self.user_id is not None and (self.user_id in message.get("muted", ()) or self._emotes_muted()):
            return
        with translation.override(self.language):
            text = emotes.emote_text(message["emote"])
            await self.send(text_data=rendering.emote_bubble_fragment(message["seat"], text))

    async def table_emote_mutes(self, message):
        if message.get("user_id") == self.user_id and self.user_id is not None:
            self.emote_mutes = message["mutes"]
            await self.send(text_data=self._emote_bar())

    # ------------------------------------------------------------ frames from the browser

    async def receive(self, text_data=None, bytes_data=None):
        self._heard()
        self.handling += 1
        with translation.override(self.language):
            try:
                await self._receive(text_data, bytes_data)
            except Exception:
                # Never close a player's socket over one frame: he gets an answer, nothing changed.
                log.exception("table %s: a frame could not be handled", self.table_id)
                await self._error(pgettext("table", "That message could not be handled: nothing changed."))
            finally:
                self.handling -= 1
                self._heard()

    async def _receive(self, text_data, bytes_data):
        data, refusal = _frame_data(text_data)
        if data is None:
            return await self._error(refusal)
        if "table" in data and str(data["table"]).strip() != str(self.table_id):
            return await self._error(pgettext("table", "That message is for another table."))
        if "chat" in data:
            return await self._chat(data["chat"])
        if "emote" in data:
            return await self._emote(data["emote"])
        if "mute_emotes" in data:
            return await self._mute_emotes(data["mute_emotes"], data.get("muted"))
        if "action" in data:
            return await self._action(data)
        if "heartbeat" in data:
            return await self._heartbeat(data["heartbeat"])
        return await self._error(pgettext("table", "Malformed message: it has no action."))

    # ------------------------------------------------------------ heartbeat

    def _heard(self):
        self.heard_at = asyncio.get_running_loop().time()

    async def _heartbeat(self, beat):
        if beat not in heartbeat.BEATS:
            return await self._error(pgettext("table", "Malformed message: a heartbeat is “here” or “away”."))
        self.away = beat == "away"
        if self.heartbeat_task is None:
            self.heartbeat_task = asyncio.ensure_future(self._watch_silence())
        await self.send(text_data=heartbeat.ANSWER)

    async def _watch_silence(self):
        """A page that beats and then falls silent has lost its network (its frames wait in
        the phone): its player is gone as if he had closed the tab."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(heartbeat.beat_seconds())
            if self.handling or loop.time() - self.heard_at < heartbeat.silence_limit(self.away):
                continue
            log.info("table %s: a socket fell silent", self.table_id)
            if self.seat is not None:
                try:
                    await database_sync_to_async(presence.do_mark_offline)(table_id=self.table_id, user_id=self.user_id)
                except Exception:  # the close below marks him again
                    log.exception("table %s: could not mark a silent seat offline", self.table_id)
            self.heartbeat_task = None  # (the close cancels nothing: this task ends here)
            await self.close(code=heartbeat.SILENT_CLOSE_CODE)
            return

    async def _action(self, data):
        action = data["action"]
        if not isinstance(action, str) or not action.strip() or len(action) > MAX_ACTION:
            return await self._error(pgettext("table", "Malformed action: send a text such as “attack 6S”."))
        if self.user is None:
            return await self._error(pgettext("table", "Sign in to play."))
        game = (self.snapshot or {}).get("game")
        if not game or game.get("status") != "playing":
            return await self._error(pgettext("table", "No game is being played at this table."))
        if data.get("game") not in (None, "") and str(data["game"]).strip() != str(game["id"]):
            return await self._error(pgettext("table", "That action is for another game."))
        if self.seat is None:
            return await self._error(pgettext("table", "You are watching this game: only its players move."))
        if data.get("seat") not in (None, ""):
            try:
                seat = int(str(data["seat"]).strip())
            except ValueError:
                return await self._error(pgettext("table", "Malformed message: the seat is a number."))
            if seat != self.seat:
                return await self._error(pgettext("table", "That seat is not yours."))
        try:
            made = await database_sync_to_async(do_player_move)(
                game_id=game["id"], user=self.user, action=action.strip(), expected_seat=self.seat
            )
        except Refusal as refusal:
            await self._error(str(refusal))
            # Perhaps refused because this socket missed a change: catch up now.
            return await self._resync()
        self._answer_with_state(made.game_id, made.move_number + 1)

    async def _chat(self, text):
        if self.user is None:
            return await self._error(pgettext("table", "Sign in to chat."))
        try:
            await database_sync_to_async(chat.do_post_chat)(table_id=self.table_id, user=self.user, text=text)
        except Refusal as refusal:
            return await self._error(str(refusal))
        await self._error("")

    async def _emote(self, emote):
        try:
            await database_sync_to_async(emotes.do_send_emote)(table_id=self.table_id, user=self.user, emote=emote)
        except Refusal as refusal:
            return await self._error(str(refusal))
        await self._error("")

    async def _mute_emotes(self, scope, muted):
        if not isinstance(muted, bool):
            muted = {"1": True, "0": False}.get(muted) if isinstance(muted, str) else None
        try:
            self.emote_mutes = await database_sync_to_async(emotes.do_mute_emotes)(
                table_id=self.table_id, user=self.user, scope=scope, muted=muted
            )
        except Refusal as refusal:
            return await self._error(str(refusal))
        await self.send(text_data=self._emote_bar())
        await self._error("")

    def _emotes_muted(self) -> bool:
        mutes = getattr(self, "emote_mutes", None) or {}
        return bool(mutes.get("table") or mutes.get("everywhere"))

    def _emote_bar(self) -> str:
        with translation.override(self.language):
            choices = emotes.emote_choices()
        return rendering.emote_bar_fragment(self.table_id, choices, self.emote_mutes, self.language)

    # ------------------------------------------------------------ helpers

    def _remember(self, snapshot):
        self.snapshot = snapshot
        game = snapshot.get("game")
        self.game_id = game["id"] if game else None
        self.move_count = game["move_count"] if game else 0
        self.seat = permissions.viewer_seat(snapshot, self.user_id)

    async def _send_state(self, extra: str = "", key=None):
        """This socket's state and log. After a group message (`key`) only what changed
        for this viewer (`rendering.LiveView.update`; the regions every seat sees alike
        rendered once per process and language). On connect and re-sync: the whole of it."""
        extras = await _extras(key, self.snapshot, self.language)
        with translation.override(self.language):
            shared = rendering.shared_regions_of(self.snapshot, self.language, key, extras) if key is not None else None
            context = presenters.table_context(
                self.snapshot,
                self.seat,
                list(self.events),
                viewer_id=self.user_id,
                log_memo=self.log_memo,
                spectator=shared.context if shared else None,
            )
            html = self.view.full(context, extras) if shared is None else self.view.update(context, shared, extras)
        await self.send(text_data=html + extra)
        self._render_when_claim_opens(context.get("claim_opens_at"))

    def _render_when_claim_opens(self, opens_at):
        """An opponent gone offline may be claimed against from `opens_at` on
        (games.services.claim): nothing else changes then, so this socket re-renders
        itself at that moment for the «Забрать победу» button to appear."""
        if self.claim_timer is not None:
            self.claim_timer.cancel()
            self.claim_timer = None
        if opens_at is None:
            return
        wait = (opens_at - timezone.now()).total_seconds()
        if wait > 0:
            self.claim_timer = asyncio.get_running_loop().call_later(
                wait + CLAIM_RENDER_SLACK, lambda: asyncio.ensure_future(self._send_state())
            )

    # An accepted action is answered by an empty `#table-error` (it clears the last
    # refusal). It rides on the frame that shows the move, which follows at once as
    # the group's message: one frame through the server instead of two. If that
    # message is lost, the answer goes alone after ANSWER_WAIT seconds.

    def _answer_with_state(self, game_id: int, moves: int):
        if self.answer_timer is not None:
            self.answer_timer.cancel()
        self.answer_for = (game_id, moves)
        self.answer_timer = asyncio.get_running_loop().call_later(ANSWER_WAIT, self._answer_alone)

    def _answer_due(self, game_id, moves) -> str:
        """The answer to this socket's accepted action, if the state about to be sent shows it."""
        if self.answer_for is None:
            return ""
        answered_game, answered_moves = self.answer_for
        if game_id == answered_game and moves < answered_moves:
            return ""
        self.answer_for = None
        self.answer_timer.cancel()
        self.answer_timer = None
        return rendering.error_fragment("", self.language)

    def _answer_alone(self):
        self.answer_timer = None
        if self.answer_for is not None:
            self.answer_for = None
            asyncio.ensure_future(self._error(""))

    async def _error(self, message: str):
        # An answer sent now is the latest: a pending one must not clear it later.
        if self.answer_timer is not None:
            self.answer_timer.cancel()
        self.answer_for = self.answer_timer = None
        await self.send(text_data=rendering.error_fragment(message, self.language))


# What other apps show at the table, read for a group message (by message and language):
# the sockets of a group wait for the same read, once per change (bounded like the shared parts).
_reads: OrderedDict = OrderedDict()


async def _extras(key, snapshot: dict, language: str) -> dict:
    """What other apps show at the table (`rendering.snapshot_extras`: their providers may
    query), read in a worker thread while the event loop serves the other sockets: for a
    group message once per language and process, on connect and re-sync for this socket."""
    read = database_sync_to_async(rendering.snapshot_extras)
    if key is None:
        return await read(snapshot, language)
    extras = _reads.get((key, language))
    if extras is None:
        extras = _reads[(key, language)] = asyncio.ensure_future(read(snapshot, language))
        while len(_reads) > rendering.SHARED_CACHE_SIZE:
            _reads.popitem(last=False)
    return await extras


def _is_news(fresh: dict, shown: dict) -> bool:
    """Whether a snapshot read now differs from the one shown, and is not older."""
    if fresh == shown:
        return False
    game, old = fresh.get("game"), shown.get("game")
    # (not older: a group message may already have brought a later move)
    return not (game and old and game["id"] == old["id"] and game["move_count"] < old["move_count"])
