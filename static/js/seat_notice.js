/* The "where to sit" notice of a signed-in player (tournaments/partials/seat_socket.html).
 *
 * The notice floats over the page: not over the very table it points to (it
 * would cover the player's hand), and each one can be closed.
 *
 * An arena's notice (data-arena-table) sent live by the socket (data-live) for a
 * table this page did not know of yet takes the page there at once: the next game
 * is dealt, nobody has to click. The notice the page loads with only shows the
 * link (a player who came to look at the standings stays where he is).
 */
(function () {
  "use strict";

  function watch(box) {
    var known = null;  // the arena table this page has been told of
    function check() {
      var link = box.querySelector("a.seat-link");
      box.classList.toggle("at-table", !!link && link.getAttribute("href") === location.pathname);
      var arena = box.querySelector(".tournament-seat[data-arena-table]");
      var table = arena && arena.getAttribute("data-arena-table");
      if (!table) { return; }
      if (arena.hasAttribute("data-live") && table !== known && table !== location.pathname) {
        location.assign(table);
      }
      known = table;
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
