// The verify page's check in the player's own browser: SHA-256 of the revealed seed,
// then the deal again exactly as docs/fairness.md writes it (deal method 2: the byte
// stream HMAC-SHA256(seed, counter), rejection sampling, Fisher-Yates from the last
// position down, six cards each starting left of the dealer), compared card for card
// with the deal the site played. WebCrypto only; no inline script (the CSP forbids it),
// texts from the section's data attributes (translated in the template).
(function (root) {
  "use strict";

  var SUITS = ["S", "H", "D", "C"];
  var RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
  var LOWEST_RANK = { 24: "9", 36: "6", 52: "2" };
  var HAND_SIZE = 6;
  var SYMBOLS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

  function subtle() {
    return (root.crypto && root.crypto.subtle) || null;
  }

  function deckBeforeShuffling(size) {
    var ranks = RANKS.slice(RANKS.indexOf(LOWEST_RANK[size]));
    var cards = [];
    SUITS.forEach(function (suit) {
      ranks.forEach(function (rank) {
        cards.push(rank + suit);
      });
    });
    return cards;
  }

  function hex(buffer) {
    return Array.prototype.map
      .call(new Uint8Array(buffer), function (b) {
        return (b < 16 ? "0" : "") + b.toString(16);
      })
      .join("");
  }

  function seedHash(seed) {
    return subtle()
      .digest("SHA-256", new TextEncoder().encode(seed))
      .then(hex);
  }

  // Block k: HMAC-SHA256(key = the seed's UTF-8 bytes, message = k as 8 bytes, big-endian).
  function byteStream(key) {
    var block = new Uint8Array(0);
    var position = 0;
    var counter = 0;
    return function next() {
      if (position < block.length) return Promise.resolve(block[position++]);
      var message = new Uint8Array(8);
      var view = new DataView(message.buffer);
      view.setUint32(0, Math.floor(counter / 4294967296));
      view.setUint32(4, counter % 4294967296);
      counter += 1;
      return subtle()
        .sign("HMAC", key, message)
        .then(function (signature) {
          block = new Uint8Array(signature);
          position = 0;
          return block[position++];
        });
    };
  }

  function shuffled(cards, seed) {
    cards = cards.slice();
    return subtle()
      .importKey("raw", new TextEncoder().encode(seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
      .then(function (key) {
        var next = byteStream(key);
        var i = cards.length - 1;
        function step() {
          if (i < 1) return cards;
          var choices = i + 1;
          var limit = 256 - (256 % choices);
          return next().then(function draw(byte) {
            if (byte >= limit) return next().then(draw); // thrown away: no modulo bias
            var j = byte % choices;
            var card = cards[i];
            cards[i] = cards[j];
            cards[j] = card;
            i -= 1;
            return step();
          });
        }
        return step();
      });
  }

  function deal(seed, players, deck, dealer) {
    return shuffled(deckBeforeShuffling(deck), seed).then(function (cards) {
      var hands = [];
      for (var p = 0; p < players; p++) hands.push([]);
      for (var k = 0; k < players * HAND_SIZE; k++) hands[(dealer + 1 + k) % players].push(cards[k]);
      var rest = cards.slice(players * HAND_SIZE);
      var trumpCard, stock;
      if (rest.length) {
        trumpCard = rest[0];
        stock = rest.slice(1).concat(rest.slice(0, 1)); // the face-up card lies under the stock
      } else {
        trumpCard = cards[cards.length - 1];
        stock = [];
      }
      return { hands: hands, stock: stock, trump_card: trumpCard, trump: trumpCard.slice(-1) };
    });
  }

  // ------------------------------------------------------------------ the page

  function shown(card) {
    return card ? card.slice(0, -1) + (SYMBOLS[card.slice(-1)] || card.slice(-1)) : "—";
  }

  function cardsRow(list, label, mine, theirs, siteWord) {
    var item = document.createElement("li");
    var title = document.createElement("span");
    title.className = "browser-verify-label";
    title.textContent = label + ":";
    item.appendChild(title);
    var wrong = 0;
    var length = Math.max(mine.length, theirs.length);
    for (var k = 0; k < length; k++) {
      var card = document.createElement("span");
      var same = mine[k] === theirs[k];
      card.className = "browser-verify-card " + (same ? "ok" : "fail");
      card.textContent = same ? shown(mine[k]) + " \u2713" : shown(mine[k]) + " \u2717 (" + siteWord + " " + shown(theirs[k]) + ")";
      item.appendChild(document.createTextNode(" "));
      item.appendChild(card);
      if (!same) wrong += 1;
    }
    list.appendChild(item);
    return { wrong: wrong, count: length };
  }

  function run(section) {
    var check = JSON.parse(section.getAttribute("data-check"));
    var status = section.querySelector(".browser-verify-status");
    var list = section.querySelector(".browser-verify-cards");
    var text = function (name) {
      return section.getAttribute("data-" + name) || "";
    };
    if (!subtle() || typeof TextEncoder === "undefined") {
      status.textContent = text("no-crypto");
      section.classList.add("fail");
      return;
    }
    status.textContent = text("running");
    Promise.all([seedHash(check.seed), deal(check.seed, check.players, check.deck, check.dealer)]).then(
      function (answers) {
        var hashOk = answers[0] === String(check.seed_hash).toLowerCase();
        var mine = answers[1];
        var site = check.deal;
        var wrong = 0;
        var count = 0;
        list.textContent = "";
        mine.hands.forEach(function (hand, seat) {
          var name = (site.names && site.names[seat]) || "";
          var label = text("seat").replace("{number}", String(seat + 1)) + (name ? " \u00b7 " + name : "");
          var row = cardsRow(list, label, hand, site.hands[seat] || [], text("site"));
          wrong += row.wrong;
          count += row.count;
        });
        var trump = cardsRow(list, text("trump"), [mine.trump_card], [site.trump_card], text("site"));
        var stock = cardsRow(list, text("stock"), mine.stock, site.stock, text("site"));
        wrong += trump.wrong + stock.wrong;
        count += stock.count; // (the face-up card is in the stock, or in the dealer's hand: counted once)
        var verdict = document.createElement("span");
        verdict.textContent = wrong
          ? text("mismatch").replace(/\{count\}/g, String(wrong))
          : text("all-match").replace(/\{count\}/g, String(count));
        status.textContent = (hashOk ? text("hash-ok") : text("hash-bad")) + " ";
        status.appendChild(verdict);
        section.classList.add(hashOk && !wrong ? "ok" : "fail");
        section.setAttribute("data-result", hashOk && !wrong ? "ok" : "fail");
      },
      function () {
        status.textContent = text("no-crypto");
        section.classList.add("fail");
      }
    );
  }

  var api = { deckBeforeShuffling: deckBeforeShuffling, seedHash: seedHash, shuffled: shuffled, deal: deal };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api; // (the tests run the deal with node against Python's)
  } else {
    root.DurakVerify = api;
    var start = function () {
      var section = document.getElementById("browser-verify");
      if (section) run(section);
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})(typeof self !== "undefined" ? self : globalThis);
