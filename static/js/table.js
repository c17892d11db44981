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

  function send(action) {
    var form = document.getElementById("move-form");
    var st = state();
    if (!form || !st) { return; }
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
})();
