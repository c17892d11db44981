/* The live table: card clicks become websocket frames, and the turn countdown.
 *
 * A click on a playable card sends its action (data-action) through the
 * hidden #move-form (htmx ws-send). A defending card with a choice of attack
 * cards (data-targets) is selected first; a click on one of the highlighted
 * attack cards then sends "defend <attack> with <card>".
 */
(function () {
  "use strict";

  var selected = null;

  function state() { return document.getElementById("table-state"); }

  // An update swaps only the regions that changed, and #table-meta: its turn classes and
  // data (the move count, the seat) go onto #table-state, before the other listeners look.
  document.addEventListener("htmx:wsAfterMessage", function () {
    var st = state();
    var meta = document.getElementById("table-meta");
    if (!st || !meta) { return; }
    st.classList.toggle("my-turn", meta.classList.contains("my-turn"));
    st.classList.toggle("over", meta.classList.contains("over"));
    Object.keys(meta.dataset).forEach(function (name) { st.dataset[name] = meta.dataset[name]; });
  });

  // False while the socket is down: a click then is not sent, nor queued for later.
  var online = false;

  function send(action) {
    var form = document.getElementById("move-form");
    var st = state();
    if (!form || !st || !online) { return; }
    form.elements.action.value = action;
    form.elements.seat.value = st.dataset.seat || "";
    form.elements.game.value = st.dataset.game || "";
    if (form.requestSubmit) { form.requestSubmit(); } else { htmx.trigger(form, "submit"); }
  }

  function clearSelection() {
    selected = null;
    document.querySelectorAll("#table-state .selected, #table-state .choosable").forEach(function (el) {
      el.classList.remove("selected", "choosable");
    });
  }

  document.addEventListener("click", function (event) {
    if (!online && event.target.closest("#table-state .t-hand, #table-state .t-pairs")) { return; }
    var card = event.target.closest("#table-state .t-hand .t-card.playable");
    if (card) {
      if (card.dataset.action) { clearSelection(); send(card.dataset.action); return; }
      var again = selected === card.dataset.card;
      clearSelection();
      if (again) { return; }
      selected = card.dataset.card;
      card.classList.add("selected");
      (card.dataset.targets || "").split(" ").forEach(function (code) {
        if (!code) { return; }
        var target = document.querySelector('#table-state .t-pairs .t-attack[data-card="' + code + '"]');
        if (target) { target.classList.add("choosable"); }
      });
      return;
    }
    var target = event.target.closest("#table-state .t-pairs .t-card.choosable");
    if (target && selected) {
      var action = "defend " + target.dataset.card + " with " + selected;
      clearSelection();
      send(action);
      return;
    }
    if (selected && !event.target.closest("#table-state .t-hand")) { clearSelection(); }
  });

  // A new state replaces the cards: forget the selection.
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (selected && !document.querySelector('#table-state .t-hand .t-card.selected')) { selected = null; }
  });

  document.addEventListener("htmx:wsAfterSend", function (event) {
    if (event.target && event.target.id === "chat-form") { event.target.reset(); }
  });

  function tick() {
    var now = Date.now();
    document.querySelectorAll(".t-countdown[data-left]").forEach(function (el) {
      if (!el.dataset.t0) { el.dataset.t0 = String(now); }
      var left = Number(el.dataset.left) - (now - Number(el.dataset.t0)) / 1000;
      left = Math.max(0, Math.ceil(left));
      el.textContent = String(left);
      el.classList.toggle("urgent", left <= 5);
    });
  }
  setInterval(tick, 250);
  document.addEventListener("DOMContentLoaded", tick);

  /* ---------------------------------------------------------------- connection
   * When the socket drops the banner says so at once and the controls are
   * disabled; nothing clicked meanwhile is sent later (the ws extension would
   * queue it and send it on reconnect: the queue is emptied and every send
   * refused while offline). When the socket is back the server sends the whole
   * state again and the banner says so for a moment.
   *
   * Reconnecting is this page's, not the extension's: the extension retries only
   * after some close codes, with a backoff that grows to a minute, and its retry
   * timer cannot be cancelled (a late one would close the socket opened meanwhile).
   * So every socket hands the extension its close as a clean one (no retry of its
   * own), and the page retries after every close: at most 2 s apart, with jitter so
   * a restarted server is not met by every browser at once, and at once when the
   * device is back online or the tab is shown again.
   *
   * A phone that loses its network does not close its socket: what it sends waits in
   * the phone, to be sent when the network is back. So the page beats
   * (games.table.heartbeat): a beat every data-heartbeat seconds ("away" while the tab
   * is hidden), each answered by the server with a frame that swaps nothing. A beat
   * left unanswered for two beats, or the browser saying it is offline, and the page
   * counts itself offline as when the socket closes: it closes that socket (what waits
   * in it is never sent) and opens a new one once the network is back.
   */
  var wasOffline = false;
  var bannerTimer = null;
  var RETRY_FIRST_MS = 250;
  var RETRY_CAP_MS = 2000;  // the server is back: the table is within 2 s
  var RETRY_SLOW_AFTER = 90;  // about two minutes of failures (a table that refuses this browser)...
  var RETRY_SLOW_MS = 15000;  // ...then no more than every 15 s
  var socket = null;  // the table's last socket
  var socketWrapper = null;  // the extension's handle of it
  var retries = 0;
  var retryTimer = null;

  function retryDelay(n) {
    var cap = n >= RETRY_SLOW_AFTER ? RETRY_SLOW_MS : Math.min(RETRY_CAP_MS, RETRY_FIRST_MS * Math.pow(2, n));
    return cap / 2 + Math.random() * cap / 2;
  }

  if (window.htmx) {
    htmx.createWebSocket = function (url) {
      var sock = new WebSocket(url, []);
      sock.binaryType = htmx.config.wsBinaryType;
      var onclose = null;
      Object.defineProperty(sock, "onclose", {
        configurable: true,
        get: function () { return onclose; },
        set: function (handler) { onclose = handler; }
      });
      sock.addEventListener("close", function (event) {
        if (!onclose || sock !== socket) { return; }  // a socket replaced already: its close is no news
        onclose({ type: "close", code: 1000, reason: event.reason, wasClean: event.wasClean, closeCode: event.code });
      });
      socket = sock;
      return sock;
    };
  }

  function reconnectNow() {
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    if (!socketWrapper || !document.getElementById("table-live")) { return; }
    if (socket && (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)) { return; }
    socketWrapper.reconnect();
  }

  function scheduleReconnect() {
    if (retryTimer || !document.getElementById("table-live")) { return; }
    retryTimer = setTimeout(function () {
      retryTimer = null;
      retries += 1;
      reconnectNow();
    }, retryDelay(retries));
  }

  var HEARTBEAT_ANSWER = "<!-- heartbeat -->";
  var ANSWER_WAIT_BEATS = 2;
  var beatMs = 0;  // from the page (data-heartbeat); 0: no beats
  var lastBeat = 0;
  var unanswered = 0;  // when the oldest beat with no answer yet went (0: none)

  function lose() {
    var old = socket;
    unanswered = 0;
    wasOffline = true;
    setOnline(false);
    banner("lost");
    if (old && old.readyState === WebSocket.OPEN) {
      try { old.close(4000); } catch (e) { /* closed meanwhile */ }
    }
    scheduleReconnect();
  }

  function beat() {
    if (!beatMs || !online || !socket || socket.readyState !== WebSocket.OPEN) { return; }
    var now = Date.now();
    if (unanswered && now - unanswered > ANSWER_WAIT_BEATS * beatMs) { lose(); return; }
    if (now - lastBeat < beatMs) { return; }
    lastBeat = now;
    if (!unanswered) { unanswered = now; }
    socket.send(JSON.stringify({ heartbeat: document.visibilityState === "hidden" ? "away" : "here" }));
  }
  setInterval(beat, 250);

  // Anything from the server answers the beats; the answer itself swaps nothing.
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    unanswered = 0;
    if (event.detail && event.detail.message === HEARTBEAT_ANSWER) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  });

  var wentOffline = false;
  window.addEventListener("offline", function () { wentOffline = true; lose(); });
  window.addEventListener("online", function () {
    retries = 0;
    var stale = wentOffline && socket && socket.readyState === WebSocket.OPEN;
    wentOffline = false;
    if (stale && socketWrapper && document.getElementById("table-live")) {
      // After a network change the old socket may be open on paper only: a new one.
      wasOffline = true;
      setOnline(false);
      banner("lost");
      socketWrapper.reconnect();
      return;
    }
    reconnectNow();
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { retries = 0; reconnectNow(); }
  });

  function live() { return document.getElementById("table-live"); }

  function banner(kind) {
    var el = document.getElementById("connection-banner");
    if (!el) { return; }
    if (bannerTimer) { clearTimeout(bannerTimer); bannerTimer = null; }
    if (!kind) { el.hidden = true; el.className = "t-connection"; return; }
    el.textContent = kind === "lost" ? el.dataset.lost : el.dataset.back;
    el.className = "t-connection " + kind;
    el.hidden = false;
    if (kind === "back") { bannerTimer = setTimeout(function () { banner(null); }, 3000); }
  }

  function setOnline(value) {
    online = value;
    var root = live();
    if (root) { root.classList.toggle("offline", !value); }
    // Only what goes through the socket: the seating forms are plain POSTs and work without it.
    var controls = "#table-state .t-hand button, #table-state .t-actions button, #chat-form button, #chat-form input";
    document.querySelectorAll(controls).forEach(function (el) {
      if (!value) {
        if (!el.disabled) { el.disabled = true; el.dataset.offline = "1"; }
      } else if (el.dataset.offline) {
        el.disabled = false;
        delete el.dataset.offline;
      }
    });
  }

  function dropQueue(detail) {
    var wrapper = detail && detail.socketWrapper;
    if (wrapper && wrapper.queue) { wrapper.queue.length = 0; }
  }

  var justOpened = false;

  document.addEventListener("htmx:wsOpen", function (event) {
    justOpened = true;
    retries = 0;
    lastBeat = 0;  // the first beat at once: from it on the server times this socket
    unanswered = 0;
    if (event.detail && event.detail.socketWrapper) { socketWrapper = event.detail.socketWrapper; }
    dropQueue(event.detail);  // anything queued while offline is stale
    setOnline(true);
    if (wasOffline) { banner("back"); }
    wasOffline = false;
  });

  document.addEventListener("htmx:wsClose", function (event) {
    dropQueue(event.detail);
    wasOffline = true;
    setOnline(false);
    banner("lost");
    if (event.detail && event.detail.socketWrapper) { socketWrapper = event.detail.socketWrapper; }
    scheduleReconnect();
  });

  document.addEventListener("htmx:wsError", function () {
    if (!online) { return; }
    wasOffline = true;
    setOnline(false);
    banner("lost");
  });

  document.addEventListener("htmx:wsConfigSend", function (event) {
    if (!online) { event.preventDefault(); }
  });
  document.addEventListener("htmx:wsBeforeSend", function (event) {
    if (!online) { event.preventDefault(); }
  });

  // A state swapped in while offline (there is none) or new buttons: keep them disabled offline.
  document.addEventListener("htmx:wsAfterMessage", function () { if (!online) { setOnline(false); } });

  /* ---------------------------------------------------------------- turn alerts
   * Your move: the tab title and the favicon say so; a sound, on unless muted (the
   * choice is remembered) and a short vibration on phones.
   */
  var baseTitle = document.title;
  var favicon = document.querySelector('link[rel="icon"]');
  var baseIcon = favicon ? favicon.href : "";
  var turnIcon = "";  // static/favicon-turn.svg, named by the page (data-turn-icon)
  var myTurn = false;
  var SOUND_KEY = "durak-sound";
  var audio = null;

  function soundOn() {
    try { return window.localStorage.getItem(SOUND_KEY) !== "off"; } catch (e) { return true; }  // on unless muted
  }

  function showSoundButton() {
    var button = document.querySelector(".t-sound");
    if (!button) { return; }
    var on = soundOn();
    button.textContent = on ? button.dataset.on : button.dataset.off;
    button.setAttribute("aria-pressed", on ? "true" : "false");
  }

  function beep() {
    if (!soundOn()) { return; }
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      var osc = audio.createOscillator();
      var gain = audio.createGain();
      osc.frequency.value = 660;
      gain.gain.setValueAtTime(0.08, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.25);
    } catch (e) { /* no sound on this browser */ }
  }

  function turnAlerts() {
    var st = state();
    var now = !!(st && st.classList.contains("my-turn"));
    var root = live();
    var title = (root && root.dataset.turnTitle) || "";
    turnIcon = turnIcon || (root && root.dataset.turnIcon) || baseIcon;
    document.title = now && title ? title + " — " + baseTitle : baseTitle;
    if (favicon) { favicon.href = now ? turnIcon : baseIcon; }
    if (now && !myTurn) {
      beep();
      if (navigator.vibrate) { try { navigator.vibrate(120); } catch (e) { /* not allowed */ } }
    }
    myTurn = now;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest(".t-sound");
    if (!button) { return; }
    try { window.localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on"); } catch (e) { /* private mode */ }
    showSoundButton();
    if (soundOn()) { beep(); }
  });

  /* ---------------------------------------------------------------- phones: tabs
   * On a narrow screen the table, the move log and the chat are three tabs of
   * a bar that stays at the bottom, so none is below the others.
   */
  function showTab(name) {
    var root = live();
    if (!root) { return; }
    root.dataset.tab = name;
    document.querySelectorAll(".t-tabs button").forEach(function (b) {
      b.setAttribute("aria-pressed", b.dataset.tab === name ? "true" : "false");
    });
    if (name === "chat") {
      var unread = document.querySelector(".t-tabs .t-unread");
      if (unread) { unread.hidden = true; unread.textContent = ""; }
    }
  }

  document.addEventListener("click", function (event) {
    var tab = event.target.closest(".t-tabs button[data-tab]");
    if (tab) { showTab(tab.dataset.tab); }
  });

  document.addEventListener("htmx:wsAfterMessage", function (event) {
    turnAlerts();
    var root = live();
    var message = event.detail && event.detail.message;
    var first = justOpened;
    justOpened = false;  // the first frames after (re)connecting are the catch-up, not news
    if (!first && root && root.dataset.tab !== "chat" && typeof message === "string" &&
        message.indexOf('id="chat-messages"') >= 0) {
      var unread = document.querySelector(".t-tabs .t-unread");
      if (unread) { unread.hidden = false; unread.textContent = String(Number(unread.textContent || 0) + 1); }
    }
  });

  /* ---------------------------------------------------------------- card animations
   * Cards that were not on the table (or in the hand) before an update slide in;
   * when the table is cleared the discard pile nods. Off when the system asks for
   * reduced motion (the CSS has the animations only under no-preference).
   */
  var before = null;

  function codes(selector) {
    var found = {};
    document.querySelectorAll(selector).forEach(function (el) { found[el.dataset.card] = true; });
    return found;
  }

  document.addEventListener("htmx:wsBeforeMessage", function () {
    before = { pairs: codes("#table-state .t-pairs .t-card[data-card]"), hand: codes("#table-state .t-hand .t-card[data-card]") };
  });

  document.addEventListener("htmx:wsAfterMessage", function () {
    if (!before) { return; }
    var old = before;
    before = null;
    var onTable = 0;
    document.querySelectorAll("#table-state .t-pairs .t-card[data-card]").forEach(function (el) {
      onTable += 1;
      if (!old.pairs[el.dataset.card]) { el.classList.add("t-enter"); }
    });
    document.querySelectorAll("#table-state .t-hand .t-card[data-card]").forEach(function (el) {
      if (!old.hand[el.dataset.card] && Object.keys(old.hand).length) { el.classList.add("t-drawn"); }
    });
    if (!onTable && Object.keys(old.pairs).length) {
      var pile = document.querySelector("#table-state .t-discard");
      if (pile) { pile.classList.add("t-swept"); }
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var root = live();
    beatMs = root ? (Number(root.dataset.heartbeat) || 0) * 1000 : 0;
    setOnline(false);  // until the socket is open
    showSoundButton();
    turnAlerts();
  });
})();
