// The key review and reconciliation pages by keyboard (app.js already saves a form on Ctrl+Enter).
(function () {
  "use strict";

  function helpOverlay() { return document.getElementById("help-overlay"); }
  function typing(el) {
    return el && el.matches && el.matches("textarea, select, input:not([type=radio]):not([type=checkbox]):not([type=hidden])");
  }
  function focusEl(el) { if (el) { el.focus(); el.scrollIntoView({ block: "nearest" }); } }

  function toggleHelp(show) {
    const overlay = helpOverlay();
    if (!overlay) return;
    overlay.hidden = show === undefined ? !overlay.hidden : !show;
    if (!overlay.hidden) overlay.querySelector("[data-close-help]").focus();
  }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-open-help]")) toggleHelp(true);
    if (event.target.closest("[data-close-help]")) toggleHelp(false);
  });

  // ---- the key review: entries, each with its form ----------------------------------------
  function entries() { return Array.from(document.querySelectorAll("[data-review-entry]")); }
  function currentEntry() {
    const el = document.activeElement;
    return el && el.closest ? el.closest("[data-review-entry]") : null;
  }
  function openForm(entry) {
    const details = entry.querySelector("details.decide-again");
    if (details) details.open = true;
    return entry.querySelector("form[data-review-form]");
  }
  function chooseOutcome(entry, index) {
    const form = openForm(entry);
    if (!form) return;
    const radios = form.querySelectorAll("input[type=radio]");
    const radio = radios[index - 1];
    if (!radio) return;
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    if (radio.value === "amended") focusEl(form.querySelector("[data-new-answer] textarea"));
    else if (!form.querySelector("[data-source]").value.trim()) focusEl(form.querySelector("[data-source]"));
  }

  // ---- reconciliation: disagreements of one item ------------------------------------------
  function reconcileRoot() { return document.getElementById("reconcile-item"); }
  function rows() { return Array.from(document.querySelectorAll("#reconcile-item li.disagreement")); }
  function currentRow() {
    const el = document.activeElement;
    return el && el.closest ? el.closest("li.disagreement") : null;
  }
  function go(url) {
    if (url) htmx.ajax("GET", url, { target: "#reconcile-item", swap: "outerHTML" });
  }

  function placeFocus(root) {
    if (root && root.id === "reconcile-item") {
      const list = rows();
      const error = root.querySelector(".final-form .field-errors");
      if (error) { focusEl(error.closest("li.disagreement")); return; }
      const after = root.dataset.focusAfter;
      let start = 0;
      if (after) start = list.findIndex(function (li) { return li.dataset.token === after; }) + 1;
      const open = list.slice(start).concat(list.slice(0, start)).find(function (li) {
        return !li.classList.contains("decided") && !li.classList.contains("awaiting");
      });
      if (open) { focusEl(open); return; }
      const next = root.querySelector("[data-next], [data-done]");
      if (next) next.focus(); else if (list.length) focusEl(list[0]);
      return;
    }
    if (root && root.matches && root.matches("[data-review-entry]")) {
      const error = root.querySelector(".has-error input, .has-error textarea, .errors");
      if (error) { focusEl(error.matches("input, textarea") ? error : root); return; }
      if (root.hasAttribute("data-just-saved")) {
        const list = entries();
        const index = list.indexOf(root);
        const next = list.slice(index + 1).find(function (li) { return li.classList.contains("is-open"); });
        focusEl(next || root);
        return;
      }
      focusEl(root);
      return;
    }
    // First load
    const recon = reconcileRoot();
    if (recon) { placeFocus(recon); return; }
    const hash = window.location.hash && document.querySelector(window.location.hash + "[data-review-entry]");
    const first = hash || entries().find(function (li) { return li.classList.contains("is-open"); }) || entries()[0];
    if (first) focusEl(first);
  }

  document.addEventListener("htmx:load", function (event) {
    const el = event.detail.elt;
    if (el && (el.id === "reconcile-item" || (el.matches && el.matches("[data-review-entry]")))) placeFocus(el);
  });
  document.addEventListener("DOMContentLoaded", function () { placeFocus(null); });

  document.addEventListener("keydown", function (event) {
    // A note or a form takes the IME's keys as text; elsewhere a composing key acts by its code.
    if (window.shortcutKeys.composing(event) && typing(event.target)) return;
    const key = window.shortcutKeys.key(event);
    const overlay = helpOverlay();
    if (overlay && !overlay.hidden) {
      if (key === "Escape" || key === "?") { event.preventDefault(); toggleHelp(false); }
      return;
    }
    const target = event.target;
    const recon = reconcileRoot();
    if (event.ctrlKey || event.metaKey) {
      // Inside a form app.js submits; on an entry or a row, submit its form from here.
      if (key === "Enter" && !(target.closest && target.closest("form"))) {
        const holder = recon ? currentRow() : currentEntry();
        const form = holder && (recon ? holder.querySelector("form") : openForm(holder));
        if (form) { event.preventDefault(); form.requestSubmit(); }
      }
      return;
    }
    if (event.altKey) return;
    if (key === "Escape") {
      const holder = recon ? currentRow() : currentEntry();
      if (holder && target !== holder) { event.preventDefault(); focusEl(holder); }
      return;
    }
    if (typing(target)) return;
    let handled = true;
    if (key === "?") toggleHelp(true);
    else if (recon) {
      const list = rows();
      const current = currentRow();
      const index = current ? list.indexOf(current) : -1;
      if (key === "j" || key === "ArrowDown") focusEl(list[Math.min(index + 1, list.length - 1)] || list[0]);
      else if (key === "k" || key === "ArrowUp") focusEl(list[Math.max(index - 1, 0)]);
      else if (["1", "2", "3", "4"].includes(key) && current) {
        const button = current.querySelector('button[data-key="' + key + '"]');
        if (button) button.click(); else handled = false;
      } else if ((key === "e" || key === "E") && current) focusEl(current.querySelector("[data-note]"));
      else if (key === "n" || key === "ArrowRight") go(recon.dataset.nextUrl);
      else if (key === "p" || key === "ArrowLeft") go(recon.dataset.prevUrl);
      else handled = false;
    } else {
      const list = entries();
      if (!list.length) return;
      const current = currentEntry();
      const index = current ? list.indexOf(current) : -1;
      if (key === "j" || key === "ArrowDown") focusEl(list[Math.min(index + 1, list.length - 1)] || list[0]);
      else if (key === "k" || key === "ArrowUp") focusEl(list[Math.max(index - 1, 0)]);
      else if (key === "s" || key === "S") {
        const entry = current || list[0];
        const form = openForm(entry);
        if (form) focusEl(form.querySelector("[data-source]"));
      } else if (["1", "2", "3"].includes(key) && current) chooseOutcome(current, Number(key));
      else handled = false;
    }
    if (handled) event.preventDefault();
  });
})();
