// One submission per tap: once a plain (non-HTMX) form is sent, its buttons are disabled until
// the next page arrives, so a double tap on a slow phone does not send it twice. The server
// refuses a second copy on its own too (the new-tournament form's token); this only spares the
// wait. Coming back to the page (back button) enables them again.
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || form.hasAttribute("hx-post") || form.method !== "post") {
      return;
    }
    // After this event: a disabled button would not send its own name and value.
    window.setTimeout(function () {
      form.querySelectorAll("button, input[type=submit]").forEach(function (button) {
        if (!button.disabled) {
          button.disabled = true;
          button.setAttribute("data-sent", "");
        }
      });
    }, 0);
  });
  // The language switcher goes back to the page as it is now: a search typed on "find my table"
  // has changed the address (hx-replace-url) since the page, and its hidden "next", was made.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.classList.contains("lang-switch")) {
      var next = form.querySelector("input[name=next]");
      if (next) {
        next.value = window.location.pathname + window.location.search;
      }
    }
  }, true);
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("[data-sent]").forEach(function (button) {
      button.disabled = false;
      button.removeAttribute("data-sent");
    });
  });
})();
