/* Web Push on this device (templates/notices/preferences.html): registers the push worker,
 * subscribes with the site's VAPID public key and posts the subscription (CSRF header). */
(function () {
  "use strict";

  function keyBytes(base64url) {
    var padded = (base64url + "===".slice((base64url.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(padded), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    return bytes;
  }

  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) { return decodeURIComponent(match[1]); }
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrfToken()},
      body: JSON.stringify(body)
    }).then(function (response) {
      if (response.ok) { return; }
      // The site's refusal, in the person's language, rather than a bare status code.
      return response.json().catch(function () { return {}; })
        .then(function (answer) { throw new Error(answer.error || String(response.status)); });
    });
  }

  function setup(box) {
    var status = box.querySelector(".push-status");
    function say(text) { status.textContent = text; }
    if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
      say(box.dataset.unsupported);
      box.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
      return;
    }
    var ready = navigator.serviceWorker.register(box.dataset.worker);
    box.querySelector(".push-on").addEventListener("click", function () {
      ready.then(function (registration) {
        return registration.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.key)});
      }).then(function (subscription) {
        return post(box.dataset.url, subscription.toJSON());
      }).then(function () { box.classList.add("subscribed"); say(box.dataset.on); })
        .catch(function (error) { say(error.message); });
    });
    box.querySelector(".push-off").addEventListener("click", function () {
      ready.then(function (registration) { return registration.pushManager.getSubscription(); })
        .then(function (subscription) {
          if (!subscription) { return null; }
          return post(box.dataset.url, {unsubscribe: true, endpoint: subscription.endpoint})
            .then(function () { return subscription.unsubscribe(); });
        }).then(function () { box.classList.remove("subscribed"); say(box.dataset.off); })
        .catch(function (error) { say(error.message); });
    });
  }

  function start() { document.querySelectorAll(".push-device").forEach(setup); }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
