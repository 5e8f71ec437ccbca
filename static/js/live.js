/* Live public pages (standings, the current round's tables).
 *
 * Every element marked [data-live] carries hx-get + hx-trigger="refresh" + hx-swap="outerHTML".
 * While the tab is visible this asks each of them to refresh at most every 15 s, and once when
 * the tab becomes visible again (if the last refresh is older than that), and at once when the
 * page is shown again by the back or forward button. Nothing runs while
 * the tab is hidden. The server marks [data-live] while the tournament is running (a closed
 * round's own tables excepted) and leaves it off once it is finished, which stops the
 * refreshing. After a successful refresh the "Actualizado a las" time shows the moment of
 * that check (a 304 from the server still means "current as of now").
 *
 * An external file with no eval: the site's Content-Security-Policy allows no inline script.
 */
(function () {
  "use strict";

  var PERIOD = 15000;
  var lastRefresh = Date.now();

  function refreshLive() {
    if (typeof window.htmx === "undefined" || document.visibilityState !== "visible") {
      return;
    }
    var elements = document.querySelectorAll("[data-live]");
    if (!elements.length) {
      return;
    }
    lastRefresh = Date.now();
    elements.forEach(function (el) {
      window.htmx.trigger(el, "refresh");
    });
  }

  function refreshIfDue() {
    if (Date.now() - lastRefresh >= PERIOD) {
      refreshLive();
    }
  }

  window.setInterval(refreshIfDue, 1000);
  document.addEventListener("visibilitychange", refreshIfDue);

  // Back or forward to a live page: the browser shows its stored copy without asking the
  // server (even with "must-revalidate"), so ask at once instead of in up to 15 s.
  window.addEventListener("pageshow", function (event) {
    var navigation = window.performance && window.performance.getEntriesByType
      ? window.performance.getEntriesByType("navigation")[0] : null;
    if (event.persisted || (navigation && navigation.type === "back_forward")) {
      refreshLive();
    }
  });

  function clockText(date, timeZone) {
    try {
      return date.toLocaleTimeString("es-ES", {
        timeZone: timeZone || undefined, hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false
      });
    } catch (e) {
      return date.toLocaleTimeString("es-ES", { hour12: false });
    }
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.elt;
    if (!target || !target.querySelectorAll || event.detail.successful === false) {
      return;
    }
    var root = target.closest ? (target.closest("[data-live]") || target) : target;
    var now = new Date();
    root.querySelectorAll("[data-live-stamp]").forEach(function (stamp) {
      stamp.textContent = clockText(now, stamp.getAttribute("data-tz"));
      stamp.setAttribute("datetime", now.toISOString());
    });
  });
})();
