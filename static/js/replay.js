/* A game's replay: play / pause with a speed choice, arrow keys, the move list.
 *
 * Every step is an htmx swap of #replay (the server renders the position), so
 * autoplay is a click on the "next" link at the chosen pace; it stops by itself
 * at the last move. The move list marks the step on screen.
 */
(function () {
  "use strict";

  var timer = null;

  function replay() { return document.getElementById("replay"); }
  function step() { var s = document.querySelector("#replay .replay-step"); return s ? Number(s.dataset.step) : 0; }
  function last() { var s = document.querySelector("#replay .replay-step"); return s ? Number(s.dataset.last) : 0; }
  function playButton() { return document.querySelector(".replay-play"); }

  function go(rel) {
    var link = document.querySelector('#replay a[rel="' + rel + '"]');
    if (link) { link.click(); return true; }
    return false;
  }

  function stop() {
    if (timer) { clearTimeout(timer); timer = null; }
    var button = playButton();
    if (button) { button.textContent = button.dataset.play; button.setAttribute("aria-pressed", "false"); }
  }

  function speed() {
    var select = document.querySelector(".replay-speed");
    return select ? Number(select.value) : 1000;
  }

  function tick() {
    timer = null;
    if (step() >= last() || !go("next")) { stop(); return; }
    // the next tick is scheduled when the new position has been swapped in
  }

  function play() {
    var button = playButton();
    if (button) { button.textContent = button.dataset.pause; button.setAttribute("aria-pressed", "true"); }
    if (step() >= last()) {  // at the end: start again from the deal (its swap schedules the next step)
      var first = document.querySelector('.move-list li[data-step="0"] a');
      if (first) { first.click(); return; }
    }
    timer = setTimeout(tick, speed());
  }

  function markStep() {
    var current = String(step());
    document.querySelectorAll(".move-list li").forEach(function (li) {
      var on = li.dataset.step === current;
      li.classList.toggle("current", on);
      if (on && li.scrollIntoView) { li.scrollIntoView({ block: "nearest" }); }
    });
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest(".replay-play")) {
      if (timer || (playButton() && playButton().getAttribute("aria-pressed") === "true")) { stop(); } else { play(); }
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (!event.target || event.target.id !== "replay") { return; }
    markStep();
    var button = playButton();
    if (button && button.getAttribute("aria-pressed") === "true") {
      if (step() >= last()) { stop(); } else { timer = setTimeout(tick, speed()); }
    }
  });

  document.addEventListener("keydown", function (event) {
    if (!replay()) { return; }
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") { return; }
    if (event.key === "ArrowRight") { stop(); if (go("next")) { event.preventDefault(); } }
    if (event.key === "ArrowLeft") { stop(); if (go("prev")) { event.preventDefault(); } }
    if (event.key === " " && document.activeElement === document.body) {
      event.preventDefault();
      if (timer) { stop(); } else { play(); }
    }
  });

  document.addEventListener("DOMContentLoaded", markStep);
})();
