/* The "where to sit" notice of a signed-in player (tournaments/partials/seat_socket.html).
 *
 * The notice floats over the page: not over the very table it points to (it
 * would cover the player's hand), and each one can be closed.
 */
(function () {
  "use strict";

  function watch(box) {
    function check() {
      var link = box.querySelector("a.seat-link");
      box.classList.toggle("at-table", !!link && link.getAttribute("href") === location.pathname);
    }
    box.addEventListener("click", function (event) {
      var close = event.target.closest(".notice-close");
      if (close) { close.parentNode.remove(); }
    });
    new MutationObserver(check).observe(box, {childList: true, subtree: true});
    check();
  }

  function start() { document.querySelectorAll(".tournament-socket").forEach(watch); }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
