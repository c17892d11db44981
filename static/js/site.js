/* Every page: what used to be inline (the Content-Security-Policy allows no inline script).
 *
 * A form with data-confirm asks before it is sent (the table's "Resign"): in the
 * capture phase, so that nothing else (htmx included) sends it first.
 */
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
})();
