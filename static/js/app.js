// Keyboard helpers for inline editing: Ctrl/Cmd+Enter saves the form, Escape cancels it.
(function () {
  "use strict";
  // Shortcuts by the character the key types (event.key), so an AZERTY or Dvorak user presses
  // the letter the page names; while a Japanese IME is on its keydowns say "Process" in
  // event.key (keyCode 229, isComposing) but still name the key pressed in event.code, so the
  // key's place is read then, and for named keys. The page scripts with shortcuts
  // (scoring.js, review.js) read keys through this.
  const CODES = { Enter: "Enter", NumpadEnter: "Enter", Escape: "Escape", Tab: "Tab", Backspace: "Backspace",
    ArrowUp: "ArrowUp", ArrowDown: "ArrowDown", ArrowLeft: "ArrowLeft", ArrowRight: "ArrowRight" };
  function composing(event) { return event.isComposing || event.keyCode === 229 || event.key === "Process"; }
  function key(event) {
    if (!composing(event) && /^[0-9A-Za-z?]$/.test(event.key || "")) return event.key;
    const code = event.code || "";
    let match = /^(?:Digit|Numpad)([0-9])$/.exec(code);
    if (match) return match[1];
    match = /^Key([A-Z])$/.exec(code);
    if (match) return event.shiftKey ? match[1] : match[1].toLowerCase();
    if (code === "Slash" && (event.shiftKey || event.key === "?")) return "?";
    if (CODES[code]) return CODES[code];
    return composing(event) ? "" : event.key;  // no code, or a key of its own (IntlRo, Minus...)
  }
  window.shortcutKeys = { key: key, composing: composing };

  document.addEventListener("keydown", function (event) {
    const form = event.target.closest && event.target.closest("form");
    if (!form) return;
    if (composing(event)) return;  // Enter or Escape ends the IME's composition, not the form
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    } else if (event.key === "Escape") {
      const container = form.closest("article, .inline-form") || form;
      const cancel = container.querySelector("[data-cancel]");
      if (cancel) { event.preventDefault(); cancel.click(); }
    }
  });
  // After an inline edit opens, put the cursor in its first field; after it closes, keep focus
  // on the item so a keyboard user does not lose their place.
  document.addEventListener("htmx:load", function (event) {
    const el = event.detail.elt;
    if (!el || !el.matches) return;
    if (el.matches(".editing, .inline-form")) {
      const field = el.querySelector("textarea, input:not([type=hidden]), select");
      if (field) field.focus();
    } else if (el.matches("article.item")) {
      // After a move up or down only the two rows come back: keep the focus on the moved
      // item's arrow, so the next press moves it again.
      if (el.hasAttribute("data-neighbour")) return;
      const arrow = el.dataset.moved &&
        el.querySelector('button[name=direction][value="' + el.dataset.moved + '"]');
      (arrow || el.querySelector("[data-edit]") || el).focus();
    }
  });
  // The bank page's one move-to-block control acts on the ticked items; this box ticks or
  // clears every item of the page shown.
  document.addEventListener("change", function (event) {
    const box = event.target;
    if (!box.matches || !box.matches("[data-select-page]")) return;
    const list = document.getElementById("item-list");
    if (!list) return;
    list.querySelectorAll('input[type=checkbox][form="bulk-move"]').forEach(function (item) {
      item.checked = box.checked;
    });
  });
  // A form with data-confirm asks before it is sent (the policy allows no inline handler).
  document.addEventListener("submit", function (event) {
    const form = event.target;
    const question = form.dataset && form.dataset.confirm;
    if (question && !window.confirm(question)) event.preventDefault();
  });
  // htmx does not swap 4xx bodies by default; our validation fragments come back as 200, but a
  // session that expired answers 401 with HX-Redirect, which htmx follows by itself.
})();

// A model configuration's settings follow the provider chosen: each setting's field carries, in
// data-options, the help text and bounds every provider declares for it (probe/forms/configs.py).
(function () {
  "use strict";
  function follow(select) {
    const form = select.form;
    if (!form) return;
    form.querySelectorAll("[data-options]").forEach(function (input) {
      const declared = JSON.parse(input.dataset.options)[select.value];
      const help = input.closest(".field") && input.closest(".field").querySelector(".help");
      ["min", "max"].forEach(function (bound) {
        if (declared && declared[bound] !== undefined) input.setAttribute(bound, declared[bound]);
        else input.removeAttribute(bound);
      });
      if (help) help.textContent = declared ? declared.help : input.dataset.notTaken;
    });
  }
  document.addEventListener("change", function (event) {
    const select = event.target;
    if (select.matches && select.matches("select[name=provider]")) follow(select);
  });
})();

// The top bar's menu: open (and its button hidden) on a wide screen, folded on a phone. Escape
// closes it and gives the focus back to its button.
document.addEventListener("DOMContentLoaded", function () {
  var menu = document.querySelector("[data-topbar-menu]");
  if (!menu) return;
  var narrow = window.matchMedia("(max-width: 900px)");
  function apply() { menu.open = !narrow.matches; }
  apply();
  narrow.addEventListener("change", apply);
  menu.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && narrow.matches && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
});
