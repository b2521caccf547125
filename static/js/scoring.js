// The scoring page by keyboard: one keypress per answer, nothing needs the mouse.
(function () {
  "use strict";

  function item() { return document.getElementById("scoring-item"); }
  function answers() { return Array.from(document.querySelectorAll("#scoring-item li.answer")); }
  function focused() { return document.activeElement && document.activeElement.closest ? document.activeElement.closest("li.answer") : null; }
  function helpOverlay() { return document.getElementById("help-overlay"); }

  function focusAnswer(li) { if (li) { li.focus(); li.scrollIntoView({ block: "nearest" }); } }

  function go(url) {
    if (url) htmx.ajax("GET", url, { target: "#scoring-item", swap: "outerHTML" });
  }

  // After each swap: put focus where the scorer will act next.
  function placeFocus() {
    const root = item();
    if (!root) return;
    const confirm = root.querySelector("[data-confirm-wrong]");
    const disputeOnly = root.querySelector(".confirm-panel.dispute-only [data-dispute-note]");
    if (disputeOnly) { disputeOnly.focus(); return; }
    if (confirm) { confirm.focus(); return; }
    const list = answers();
    const after = root.dataset.focusAfter;
    let start = 0;
    if (after) {
      const index = list.findIndex(function (li) { return li.dataset.tokens === after; });
      start = index + 1;
    }
    const open = list.slice(start).concat(list.slice(0, start)).find(function (li) { return !li.classList.contains("decided"); });
    if (open) { focusAnswer(open); return; }
    const next = root.querySelector("[data-next], [data-reveal]");
    if (next) next.focus(); else if (list.length) focusAnswer(list[0]);
  }

  // As soon as the swap is done: htmx settles only class, style, width and height, and the
  // fragment's root keeps the same class, so the data attributes read here are the new ones.
  document.addEventListener("htmx:afterSwap", function () {
    if (document.getElementById("scoring-item")) placeFocus();
  });
  document.addEventListener("DOMContentLoaded", placeFocus);

  // A request that failed without a message of ours (a server error, the network): say so in
  // the page instead of doing nothing. Fragments with a message (400, 409) are swapped in.
  document.addEventListener("htmx:responseError", showRequestError);
  document.addEventListener("htmx:sendError", showRequestError);
  function showRequestError(event) {
    const root = item();
    const template = document.getElementById("request-error");
    if (!root || !template) return;
    let box = root.querySelector("[data-request-error]");
    if (!box) {
      box = document.createElement("p");
      box.className = "message error";
      box.setAttribute("role", "alert");
      box.setAttribute("data-request-error", "");
      root.querySelector(".question-card").before(box);
    }
    box.textContent = template.content.textContent.trim();
  }

  // The item overview: a number and Enter jumps (the form), arrows move, O and Esc leave.
  function overviewKey(overview, event) {
    const links = Array.from(overview.querySelectorAll(".overview-grid a"));
    const index = links.indexOf(document.activeElement);
    const inField = event.target.matches("input");
    if (event.key === "Escape") { event.preventDefault(); overview.querySelector("[data-back]").click(); return; }
    if (inField && event.key === "ArrowDown") { event.preventDefault(); (overview.querySelector(".current a") || links[0]).focus(); return; }
    if (inField) return;
    const step = { ArrowRight: 1, ArrowLeft: -1, l: 1, h: -1 }[event.key];
    if (step && links.length) { event.preventDefault(); links[Math.max(0, Math.min(links.length - 1, index + step))].focus(); return; }
    if (event.key === "o" || event.key === "O") { event.preventDefault(); overview.querySelector("[data-next-open]").click(); return; }
    if (/^[0-9]$/.test(event.key)) {
      const field = overview.querySelector("[data-jump]");
      field.value = ""; field.focus();  // the digit then lands in the field
    }
  }

  function openNote(li) {
    if (!li) return false;
    const form = li.querySelector("form.note-form");
    if (!form) return false;
    form.hidden = false;
    const field = form.querySelector("[data-note]");
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
    return true;
  }

  function press(li, key) {
    if (!li) return false;
    const button = li.querySelector('.answer-actions button[data-key="' + key + '"]');
    if (!button) return false;
    button.click();
    return true;
  }

  function toggleHelp(show) {
    const overlay = helpOverlay();
    if (!overlay) return;
    overlay.hidden = show === undefined ? !overlay.hidden : !show;
    if (!overlay.hidden) overlay.querySelector("[data-close-help]").focus(); else placeFocus();
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-open-help]")) toggleHelp(true);
    if (event.target.closest("[data-close-help]")) toggleHelp(false);
    if (event.target.closest("[data-undo]")) htmx.trigger("#undo-form", "submit");
  });

  document.addEventListener("keydown", function (event) {
    // Ctrl+Enter in the dispute note is app.js's (it saves any form).
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const overlay = helpOverlay();
    if (overlay && !overlay.hidden) {
      if (event.key === "Escape" || event.key === "?") { event.preventDefault(); toggleHelp(false); }
      return;
    }
    const overview = document.getElementById("scoring-overview");
    if (overview) { overviewKey(overview, event); return; }
    const root = item();
    if (!root) return;
    const typing = event.target.matches("textarea, input, select");
    if (event.key === "Escape") {
      const note = event.target.closest && event.target.closest("form.note-form");
      if (note) {
        event.preventDefault();
        if (!note.querySelector("[data-note]").defaultValue) note.hidden = true;
        focusAnswer(note.closest("li.answer"));
        return;
      }
      const cancel = root.querySelector(".confirm-panel [data-cancel]");
      if (cancel) { event.preventDefault(); cancel.click(); }
      return;
    }
    if (typing) return;
    const list = answers();
    const current = focused();
    const index = current ? list.indexOf(current) : -1;
    const key = event.key;
    let handled = true;
    if (key === "?") toggleHelp(true);
    else if (key === "ArrowDown" || key === "j") focusAnswer(list[Math.min(index + 1, list.length - 1)] || list[0]);
    else if (key === "ArrowUp" || key === "k") focusAnswer(list[Math.max(index - 1, 0)]);
    else if (key === "c" || key === "C") handled = press(current, "c");
    else if (key === "w" || key === "W" || key === "x") handled = press(current, "w");
    else if (["1", "2", "3", "4"].includes(key)) handled = press(current, key);
    else if (key === "u" || key === "U") htmx.trigger("#undo-form", "submit");
    else if (key === "n" || key === "ArrowRight") go(root.dataset.nextUrl);
    else if (key === "o" || key === "O") { const link = root.querySelector("[data-next-open]"); go(link && link.getAttribute("hx-get")); }
    else if (key === "g" || key === "G") { const link = root.querySelector("[data-overview]"); if (link) window.location.href = link.href; }
    else if (key === "m" || key === "M") handled = openNote(current);
    else if (key === "p" || key === "ArrowLeft") go(root.dataset.prevUrl);
    else if (key === "Enter" && root.dataset.itemDone && !event.target.matches("button, a, summary")) {
      const reveal = root.querySelector("[data-reveal]");
      if (root.dataset.nextUrl) go(root.dataset.nextUrl); else if (reveal) reveal.click();
    } else if (key === "d" || key === "D") {
      const li = current || list[0];
      if (li) go(window.location.pathname + "?dispute=" + encodeURIComponent(li.dataset.tokens));
    } else handled = false;
    if (handled) event.preventDefault();
  });
})();
