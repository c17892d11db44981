// The home-screen app: register the service worker (its URL from the page's meta tag).
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="service-worker"]');
  if (!meta || !("serviceWorker" in navigator)) return;
  window.addEventListener("load", function () {
    navigator.serviceWorker.register(meta.getAttribute("content"), { scope: "/" }).catch(function () {
      // No worker (a private window, an old browser): the site works the same without it.
    });
  });
})();
