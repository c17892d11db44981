// The site's service worker (served at /sw.js, scope "/"; the view puts its settings in
// self.DURAK_SW before this file). Pages always come from the network and are never
// stored: a table's HTML is live and personal. Without a network a page falls back to
// the offline page. Static files are kept once fetched (served from the cache when their
// names are hashed, so never changed).
// Websockets never pass through a service worker, and only GET requests of the site
// itself are looked at.
"use strict";

var CONFIG = self.DURAK_SW || { version: "dev", offline: "/offline/", static: "/static/", precache: [], hashed: false };
var CACHE = "durak-" + CONFIG.version;

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches
      .open(CACHE)
      .then(function (cache) {
        return cache.addAll([CONFIG.offline].concat(CONFIG.precache));
      })
      .then(function () {
        return self.skipWaiting();
      })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches
      .keys()
      .then(function (names) {
        return Promise.all(
          names
            .filter(function (name) {
              return name.indexOf("durak-") === 0 && name !== CACHE;
            })
            .map(function (name) {
              return caches.delete(name);
            })
        );
      })
      .then(function () {
        return self.clients.claim();
      })
  );
});

// With DEBUG on the names are not hashed: a changed file must win, the cache only backs it up.
function fromNetworkThenCache(request) {
  return caches.open(CACHE).then(function (cache) {
    return fetch(request)
      .then(function (response) {
        if (response.ok && response.type === "basic") cache.put(request, response.clone());
        return response;
      })
      .catch(function () {
        return cache.match(request);
      });
  });
}

function fromCacheThenNetwork(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request).then(function (kept) {
      if (kept) return kept;
      return fetch(request).then(function (response) {
        if (response.ok && response.type === "basic") cache.put(request, response.clone());
        return response;
      });
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.indexOf("/ws/") === 0) return; // (a websocket's upgrade is never a fetch event)
  if (request.mode === "navigate") {
    event.respondWith(
      fetch(request).catch(function () {
        return caches.match(CONFIG.offline);
      })
    );
    return;
  }
  if (url.pathname.indexOf(CONFIG.static) === 0) {
    event.respondWith(CONFIG.hashed ? fromCacheThenNetwork(request) : fromNetworkThenCache(request));
  }
  // Anything else (htmx fragments, JSON, the admin) goes to the network as usual.
});

// Web Push (notices/): "your table is ready" and the other notices a player chose, shown with
// every page closed; a tap opens (or focuses) the page the notice names.
self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (error) {
    data = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(data.title || "Durak", {
      body: data.body || "",
      tag: data.tag || undefined,
      data: { url: data.url || "/" },
      requireInteraction: true,
    })
  );
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (open) {
      for (var i = 0; i < open.length; i++) {
        if (open[i].url === url && "focus" in open[i]) return open[i].focus();
      }
      return self.clients.openWindow(url);
    })
  );
});
