/* An event's page (tournaments/event.html): the countdown to the next round.
 *
 * The server sends the seconds left with every panel update; between updates
 * the browser counts down by itself.
 */
(function () {
  "use strict";

  setInterval(function () {
    document.querySelectorAll(".countdown[data-seconds]").forEach(function (el) {
      var left = Math.max(0, parseInt(el.dataset.seconds, 10) - 1);
      el.dataset.seconds = left;
      var out = el.querySelector(".clock");
      if (out) {
        var h = Math.floor(left / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
        var pad = function (n) { return (n < 10 ? "0" : "") + n; };
        out.textContent = h ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s);
      }
    });
  }, 1000);
})();
