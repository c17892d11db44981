// The invite box's Share button: the phone's own share sheet (Telegram, WhatsApp…)
// where the browser has one, else the link is copied. Texts come from data attributes
// (translated in the template): the CSP allows no inline script.
(function () {
  "use strict";

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand && document.execCommand("copy");
      document.body.removeChild(area);
      if (ok) resolve();
      else reject(new Error("copy"));
    });
  }

  function share(button) {
    var input = document.getElementById(button.getAttribute("data-share-target"));
    if (!input) return;
    var data = {
      title: button.getAttribute("data-share-title") || document.title,
      text: button.getAttribute("data-share-text") || "",
      url: input.value,
    };
    var copied = function () {
      button.textContent = button.getAttribute("data-copied") || button.textContent;
    };
    var fallback = function () {
      copy(input.value).then(copied, function () {
        input.select();
      });
    };
    if (navigator.share && (!navigator.canShare || navigator.canShare(data))) {
      navigator.share(data).catch(function (error) {
        // The person closed the share sheet: nothing to do. Anything else: copy instead.
        if (!error || error.name !== "AbortError") fallback();
      });
    } else {
      fallback();
    }
  }

  function ready() {
    document.querySelectorAll("[data-share-target]").forEach(function (button) {
      button.hidden = false; // shown only where this script runs
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-share-target]");
    if (button) share(button);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
