/* The round clock: every element marked [data-clock] (the public clock page, the clock panel of
 * the director's round page) counts down by itself.
 *
 * The server's time is the truth. The element carries the state as the server computed it
 * (data-status, data-ends-at, data-remaining, data-now); every few seconds (data-poll) this
 * asks data-state-url for the state again (tournaments/views/clock.py) and measures the
 * difference between the server's clock ("now") and this screen's, taking the answer that
 * came back fastest of the last few. Between answers it ticks every 250 ms from the server's
 * end of the round (ends_at) corrected by that difference, so every screen shows the same
 * second, and it keeps counting when the network drops (it then says so: [data-clock-offline]).
 * When the count reaches zero the element turns "is-over" at once, without asking anybody.
 *
 * Words come from the element's data-word-* attributes (the page's language). An external
 * file with no eval: the site's Content-Security-Policy allows no inline script.
 */
(function () {
  "use strict";

  var TICK = 250;
  var SAMPLES = 8;
  var ENDING = 60; // seconds: the last minute looks different (is-ending)
  var STATUSES = ["idle", "running", "paused", "over", "no_limit", "no_round", "closed"];

  function number(text) {
    if (text === null || text === undefined || text === "") {
      return null;
    }
    var value = parseFloat(text);
    return isNaN(value) ? null : value;
  }

  function instant(text) {
    if (!text) {
      return null;
    }
    var value = Date.parse(text);
    return isNaN(value) ? null : value;
  }

  function two(n) {
    return (n < 10 ? "0" : "") + n;
  }

  function shownSeconds(remaining) {
    if (remaining === null) {
      return null;
    }
    return Math.max(0, Math.ceil(remaining - 1e-9));
  }

  function mmss(seconds) {
    if (seconds === null) {
      return "--:--";
    }
    return two(Math.floor(seconds / 60)) + ":" + two(seconds % 60);
  }

  function Clock(root) {
    this.root = root;
    this.url = root.getAttribute("data-state-url");
    this.poll = (number(root.getAttribute("data-poll")) || 5) * 1000;
    this.samples = [];
    this.timer = null;
    this.inFlight = false;
    this.state = {
      status: root.getAttribute("data-status"),
      round: number(root.getAttribute("data-round")),
      endsAt: instant(root.getAttribute("data-ends-at")),
      remaining: number(root.getAttribute("data-remaining"))
    };
    var serverNow = instant(root.getAttribute("data-now"));
    // The page's own time: a first guess (it left the server a moment ago), replaced by the
    // first answer of the state.
    this.offset = serverNow === null ? 0 : serverNow - Date.now();
    this.render();
    this.fetch();
  }

  Clock.prototype.word = function (status) {
    return this.root.getAttribute("data-word-" + status) || "";
  };

  Clock.prototype.now = function () {
    return Date.now() + this.offset;
  };

  /* Seconds left now, and the status shown: a running clock past its end is over. */
  Clock.prototype.current = function () {
    var st = this.state;
    var remaining = st.remaining;
    var status = st.status;
    if (st.endsAt !== null && (status === "running" || status === "over")) {
      remaining = (st.endsAt - this.now()) / 1000;
    }
    if (status === "running" && remaining !== null && remaining <= 0) {
      status = "over";
    }
    return { status: status, remaining: remaining };
  };

  Clock.prototype.set = function (selector, text) {
    var el = this.root.querySelector(selector);
    if (el && el.textContent !== text) {
      el.textContent = text;
    }
  };

  Clock.prototype.endsText = function () {
    var st = this.state;
    if (st.status !== "running" || st.endsAt === null) {
      return "";
    }
    // The end in the club's time zone: the screen's clock may be wrong, the server's is not.
    var end = new Date(st.endsAt);
    var text;
    try {
      text = end.toLocaleTimeString(document.documentElement.lang || undefined, {
        timeZone: this.root.getAttribute("data-tz") || undefined,
        hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false
      });
    } catch (e) {
      text = end.toLocaleTimeString();
    }
    return (this.root.getAttribute("data-ends-template") || "").replace("__T__", text);
  };

  Clock.prototype.render = function () {
    var root = this.root;
    var cur = this.current();
    var shown = shownSeconds(cur.remaining);
    var digits = mmss(cur.status === "no_limit" || cur.status === "no_round" ? null : shown);
    STATUSES.forEach(function (s) {
      root.classList.toggle("is-" + s, s === cur.status);
    });
    root.classList.toggle("is-ending", cur.status === "running" && shown !== null && shown <= ENDING);
    // Time up while the director's page is open: "pause" and taking time away no longer apply.
    root.querySelectorAll("[data-clock-not-over]").forEach(function (el) {
      el.hidden = cur.status === "over";
    });
    root.classList.toggle("is-long", digits.length > 5);
    if (root.getAttribute("data-shown-status") !== cur.status) {
      root.setAttribute("data-shown-status", cur.status);
    }
    this.set("[data-clock-time]", digits);
    this.set("[data-clock-status]", this.word(cur.status));
    this.set("[data-clock-ends]", cur.status === "over" ? "" : this.endsText());
    var label = root.getAttribute("data-round-label");
    if (label && this.state.round !== null) {
      this.set("[data-clock-round]", label.replace("__N__", String(this.state.round)));
    } else if (this.state.status === "no_round") {
      this.set("[data-clock-round]", this.word("no_round"));
    }
    root.querySelectorAll("[data-clock-over-notice]").forEach(function (notice) {
      notice.hidden = cur.status !== "over";
    });
  };

  Clock.prototype.offline = function (yes) {
    var hint = this.root.querySelector("[data-clock-offline]");
    if (hint) {
      hint.hidden = !yes;
    }
  };

  Clock.prototype.schedule = function () {
    var self = this;
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(function () {
      self.fetch();
    }, this.poll);
  };

  Clock.prototype.fetch = function () {
    var self = this;
    if (!this.url || !this.root.isConnected) {
      return;
    }
    if (this.inFlight || document.visibilityState === "hidden") {
      this.schedule();
      return;
    }
    this.inFlight = true;
    var sent = Date.now();
    window.fetch(this.url, { cache: "no-store", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      })
      .then(function (data) {
        var received = Date.now();
        var serverNow = instant(data.now);
        if (serverNow !== null) {
          // The server answered half way through the round trip (as near as can be told).
          self.samples.push({ rtt: received - sent, offset: serverNow - (sent + received) / 2 });
          if (self.samples.length > SAMPLES) {
            self.samples.shift();
          }
          var best = self.samples.reduce(function (a, b) { return b.rtt < a.rtt ? b : a; });
          self.offset = best.offset;
        }
        self.state = {
          status: data.status,
          round: data.round === null || data.round === undefined ? null : data.round,
          endsAt: instant(data.ends_at),
          remaining: data.remaining === null || data.remaining === undefined ? null : data.remaining
        };
        self.offline(false);
        self.render();
      })
      .catch(function () {
        self.offline(true); // keep counting from what is known
      })
      .then(function () {
        self.inFlight = false;
        self.schedule();
      });
  };

  var clocks = [];

  function discover() {
    document.querySelectorAll("[data-clock]").forEach(function (root) {
      if (!root.__clock) {
        root.__clock = new Clock(root);
        clocks.push(root.__clock);
      }
    });
    clocks = clocks.filter(function (clock) {
      if (!clock.root.isConnected) {
        window.clearTimeout(clock.timer);
        return false;
      }
      return true;
    });
  }

  function tick() {
    discover();
    clocks.forEach(function (clock) {
      clock.render();
    });
    keepAwake();
  }

  // A screen showing a running clock should not go dark (Screen Wake Lock, where there is one).
  var wakeLock = null;
  function keepAwake() {
    var running = clocks.some(function (clock) {
      return clock.current().status === "running";
    });
    if (!running || wakeLock || !navigator.wakeLock || document.visibilityState !== "visible") {
      return;
    }
    wakeLock = "asking";
    navigator.wakeLock.request("screen").then(function (lock) {
      wakeLock = lock;
      lock.addEventListener("release", function () {
        wakeLock = null;
      });
    }).catch(function () {
      wakeLock = null;
    });
  }

  function start() {
    tick();
    window.setInterval(tick, TICK);
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") {
        clocks.forEach(function (clock) {
          clock.fetch();
        });
      }
    });
    window.addEventListener("offline", function () {
      clocks.forEach(function (clock) {
        clock.offline(true);
      });
    });
    window.addEventListener("online", function () {
      clocks.forEach(function (clock) {
        clock.fetch();
      });
    });
    // Full screen, where the browser offers it (a projector's laptop, a TV's browser).
    document.querySelectorAll("[data-clock-fullscreen]").forEach(function (button) {
      var target = button.closest("[data-clock]") || document.documentElement;
      if (!document.fullscreenEnabled || !target.requestFullscreen) {
        return;
      }
      button.hidden = false;
      button.addEventListener("click", function () {
        target.requestFullscreen().catch(function () {});
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
