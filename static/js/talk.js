/* The table that talks: bubbles at the seats, sounds, the deal and the card flights,
 * refusals as a toast next to the hand, and why a card cannot be played.
 *
 * Everything shown is the server's: the declarations («Беру», «Бито», «Пас», «Перевод»)
 * come in #t-said (a region of state.html, one bubble per seat, each with a key), the
 * emotes are appended to #t-emotes, the refusal is #table-error, the hint is a card's
 * data-why. This script only places them at their seat and lets them go again.
 *
 * Sounds are made here with the Web Audio API (no files): a card played, taking, the
 * deal. "Your move" is table.js's; both follow the one sound button (localStorage
 * "durak-sound": on unless it says "off"). Motion only when the system allows it
 * (talk.css has the animations under prefers-reduced-motion: no-preference).
 */
(function () {
  "use strict";

  var SOUND_KEY = "durak-sound";
  var BUBBLE_MS = 2600;
  var TOAST_MS = 6000;
  var HINT_MS = 2600;
  var seenKeys = {};
  var audio = null;

  function state() { return document.getElementById("table-state"); }

  /* ------------------------------------------------------------------ sounds */

  function soundOn() {
    try { return window.localStorage.getItem(SOUND_KEY) !== "off"; } catch (e) { return true; }
  }

  function context() {
    if (!soundOn()) { return null; }
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended" && audio.resume) { audio.resume(); }
      return audio;
    } catch (e) { return null; }  // no Web Audio here
  }

  // One short tone: frequency from `from` to `to` Hz over `length` s, starting `at` s from now.
  function tone(from, to, length, at, volume, type) {
    var ctx = context();
    if (!ctx) { return; }
    var start = ctx.currentTime + (at || 0);
    var osc = ctx.createOscillator();
    var gain = ctx.createGain();
    osc.type = type || "triangle";
    osc.frequency.setValueAtTime(from, start);
    osc.frequency.exponentialRampToValueAtTime(to, start + length);
    gain.gain.setValueAtTime(volume || 0.06, start);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
    osc.connect(gain);
    gain.connect(ctx.destination);
    osc.start(start);
    osc.stop(start + length + 0.02);
  }

  // A card on the felt: a soft noise burst, like a card slapped down.
  function cardSound() {
    var ctx = context();
    if (!ctx) { return; }
    var length = 0.09;
    var buffer = ctx.createBuffer(1, Math.floor(ctx.sampleRate * length), ctx.sampleRate);
    var data = buffer.getChannelData(0);
    for (var i = 0; i < data.length; i++) { data[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / data.length, 3); }
    var source = ctx.createBufferSource();
    var filter = ctx.createBiquadFilter();
    var gain = ctx.createGain();
    source.buffer = buffer;
    filter.type = "bandpass";
    filter.frequency.value = 1800;
    gain.gain.value = 0.25;
    source.connect(filter);
    filter.connect(gain);
    gain.connect(ctx.destination);
    source.start();
  }

  var SOUNDS = {
    card: cardSound,
    take: function () { tone(420, 180, 0.35, 0, 0.07, "sine"); },
    deal: function () { for (var i = 0; i < 6; i++) { tone(900, 700, 0.05, i * 0.07, 0.04, "square"); } },
  };

  function play(name) { try { SOUNDS[name](); } catch (e) { /* a sound is never worth an error */ } }

  // Browsers start audio only after a gesture: the first tap opens the context.
  document.addEventListener("pointerdown", function () { context(); }, { once: true });

  /* ------------------------------------------------------------------ bubbles at the seats */

  function seatElement(seat) {
    return document.querySelector('#table-state .t-seat[data-seat="' + seat + '"]');
  }

  function place(bubble) {
    var seat = seatElement(bubble.dataset.seat);
    var box = (seat || state() || document.body).getBoundingClientRect();
    bubble.style.left = Math.round(box.left + box.width / 2) + "px";
    bubble.style.top = Math.round(Math.max(4, box.top - 8)) + "px";
  }

  function show(bubble, then) {
    place(bubble);
    bubble.classList.add("t-show");
    setTimeout(function () {
      bubble.classList.remove("t-show");
      if (then) { then(); }
    }, BUBBLE_MS);
  }

  function declarations(quiet) {
    document.querySelectorAll("#t-said .t-bubble[data-key]").forEach(function (bubble) {
      var key = bubble.dataset.key + ":" + bubble.dataset.seat;
      if (seenKeys[key]) { return; }
      seenKeys[key] = true;
      if (quiet) { return; }  // what was said before the page opened is not news
      show(bubble);
      if (bubble.classList.contains("t-said-take")) { play("take"); }
    });
  }

  function emotes() {
    document.querySelectorAll("#t-emotes .t-bubble:not(.t-placed)").forEach(function (bubble) {
      bubble.classList.add("t-placed");
      show(bubble, function () { bubble.remove(); });
    });
  }

  /* ------------------------------------------------------------------ toasts next to the hand */

  var toastTimer = null;
  var hintTimer = null;

  function nextToHand(toast) {
    var hand = document.querySelector("#table-state .t-hand") || document.querySelector("#table-state .t-actions");
    if (!hand) { toast.style.top = ""; return; }
    var box = hand.getBoundingClientRect();
    var height = toast.getBoundingClientRect().height || 40;
    toast.style.top = Math.round(Math.max(4, box.top - height - 8)) + "px";
  }

  function refusal() {
    var toast = document.getElementById("table-error");
    if (!toast) { return; }
    clearTimeout(toastTimer);
    if (!toast.textContent.trim()) { toast.classList.remove("shown"); return; }
    toast.classList.add("shown");
    nextToHand(toast);
    toastTimer = setTimeout(function () { toast.classList.remove("shown"); }, TOAST_MS);
  }

  function hint(card) {
    var toast = document.getElementById("t-hint");
    if (!toast || !card.dataset.why) { return; }
    toast.textContent = card.dataset.why;
    toast.hidden = false;
    nextToHand(toast);
    clearTimeout(hintTimer);
    hintTimer = setTimeout(function () { toast.hidden = true; }, HINT_MS);
  }

  document.addEventListener("click", function (event) {
    var card = event.target.closest('#table-state .t-hand .t-card[aria-disabled="true"]');
    if (card) { hint(card); return; }
    var toast = event.target.closest("#table-error.shown, #t-hint");
    if (toast) { toast.classList.remove("shown"); if (toast.id === "t-hint") { toast.hidden = true; } }
  });

  /* ------------------------------------------------------------------ the deal and card flights */

  var before = null;

  function cards(selector) {
    var found = {};
    document.querySelectorAll(selector).forEach(function (el) { found[el.dataset.card] = el.getBoundingClientRect(); });
    return found;
  }

  function movingSeats() {
    var boxes = [];
    document.querySelectorAll("#table-state .t-seat.to-move").forEach(function (el) { boxes.push(el.getBoundingClientRect()); });
    return boxes;
  }

  document.addEventListener("htmx:wsBeforeMessage", function () {
    var st = state();
    before = {
      game: st ? st.dataset.game || "" : "",
      pairs: cards("#table-state .t-pairs .t-card[data-card]"),
      hand: cards("#table-state .t-hand .t-card[data-card]"),
      movers: movingSeats(),
    };
  });

  function fly(card, from) {
    var box = card.getBoundingClientRect();
    card.style.setProperty("--from-x", Math.round(from.left + from.width / 2 - (box.left + box.width / 2)) + "px");
    card.style.setProperty("--from-y", Math.round(from.top + from.height / 2 - (box.top + box.height / 2)) + "px");
    card.classList.add("t-flight");
  }

  function afterMessage(event) {
    var st = state();
    var old = before;
    var message = event.detail && event.detail.message;
    before = null;
    declarations(false);
    emotes();
    // (only a frame that carries the answer: other players' moves leave the toast's timer alone)
    if (typeof message !== "string" || message.indexOf('id="table-error"') >= 0) { refusal(); }
    if (!old || !st) { return; }
    var game = st.dataset.game || "";
    if (game && old.game && game !== old.game) {
      document.querySelectorAll("#table-state .t-hand .t-card").forEach(function (el, i) {
        el.style.setProperty("--i", String(i));
        el.classList.add("t-dealt");
      });
      play("deal");
      return;
    }
    var played = 0;
    document.querySelectorAll("#table-state .t-pairs .t-card[data-card]").forEach(function (el) {
      if (old.pairs[el.dataset.card]) { return; }
      played += 1;
      var from = old.hand[el.dataset.card] || (old.movers.length === 1 ? old.movers[0] : null);
      if (from) { fly(el, from); }
    });
    if (played) { play("card"); }
  }

  document.addEventListener("htmx:wsAfterMessage", afterMessage);
  document.addEventListener("DOMContentLoaded", function () { declarations(true); });
})();
