// One submission per tap: once a plain (non-HTMX) form is sent, its buttons are disabled until
// the next page arrives, so a double tap on a slow phone does not send it twice. The server
// refuses a second copy on its own too (the new-tournament form's token); this only spares the
// wait. Coming back to the page (back button) enables them again.
//
// A plain form that deletes (data-confirm="¿Borrar …?") asks first with the browser's own
// question and, on "yes", sends confirm=1: the server then does not ask again with its
// confirmation page (the page every such form gets without JavaScript).
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-confirm")) {
      return;
    }
    if (!window.confirm(form.getAttribute("data-confirm"))) {
      event.preventDefault();
      return;
    }
    if (!form.querySelector("input[name=confirm]")) {
      var yes = document.createElement("input");
      yes.type = "hidden";
      yes.name = "confirm";
      yes.value = "1";
      form.appendChild(yes);
    }
  }, true);
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) || form.hasAttribute("hx-post") || form.method !== "post") {
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
  // On the answer to a plain form (data-fixed-next) the address only takes forms: the server's
  // "next" (the page the form came from) stands.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.classList.contains("lang-switch") &&
        !form.hasAttribute("data-fixed-next")) {
      var next = form.querySelector("input[name=next]");
      if (next) {
        next.value = window.location.pathname + window.location.search;
      }
    }
  }, true);
  // An HTMX save that got no usable answer (a server error, no network): the swap never
  // happens, so the form itself says so, keeps what was typed and loses its "saved" look; a
  // refusal in words (400, 409) comes back as the row and needs nothing here.
  function sendFailed(event) {
    var form = event.detail && event.detail.elt;
    if (!(form instanceof HTMLFormElement)) {
      form = form && form.closest ? form.closest("form") : null;
    }
    if (!form) {
      return;
    }
    var xhr = event.detail.xhr;
    var text;
    if (event.type === "htmx:sendError" || !xhr || !xhr.status) {
      text = document.body.getAttribute("data-offline");
    } else if (xhr.status === 401) {
      text = document.body.getAttribute("data-session-ended");
    } else {
      text = (document.body.getAttribute("data-send-failed") || "").replace("{status}", xhr.status);
    }
    var note = form.querySelector("p.send-failed");
    if (!note) {
      note = document.createElement("p");
      note.className = "error send-failed";
      note.setAttribute("role", "alert");
      var actions = form.querySelector(".actions, button");
      form.insertBefore(note, actions && actions.parentNode === form ? actions : null);
    }
    note.textContent = text;
    form.classList.remove("saved");
    form.classList.add("has-error");
    form.querySelectorAll(".saved-mark, .figures").forEach(function (el) {
      el.hidden = true;
    });
  }
  document.addEventListener("htmx:responseError", sendFailed);
  document.addEventListener("htmx:sendError", sendFailed);
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail && event.detail.elt;
    var note = form && form.querySelector ? form.querySelector("p.send-failed") : null;
    if (note) {
      note.remove();
    }
  });
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("[data-sent]").forEach(function (button) {
      button.disabled = false;
      button.removeAttribute("data-sent");
    });
  });
})();
