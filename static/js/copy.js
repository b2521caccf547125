// Copy buttons: <button data-copy="#id"> puts the exact text of #id on the clipboard.
// Optional: data-copied / data-copy-failed (or data-failed) for the messages, and an element
// with data-copy-status beside the button to show them in (aria-live); otherwise the button's
// own label changes for two seconds. Without the clipboard API (plain http on another host),
// the text is selected so that Ctrl+C copies it. The default messages come from Django's
// JavaScript catalogue (gettext), which base.html loads before this file.
(function () {
  "use strict";
  function select(element) {
    const range = document.createRange();
    range.selectNodeContents(element);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  function say(button, text) {
    const status = button.parentElement && button.parentElement.querySelector("[data-copy-status]");
    const target = status || button;
    if (!status && !button.dataset.label) button.dataset.label = button.textContent;
    target.textContent = text;
    clearTimeout(button._copyTimer);
    button._copyTimer = setTimeout(function () {
      target.textContent = status ? "" : button.dataset.label;
    }, 2000);
  }
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-copy]");
    if (!button) return;
    const target = document.querySelector(button.dataset.copy);
    if (!target) return;
    const copied = button.dataset.copied || gettext("Copied");
    const failed = button.dataset.copyFailed || button.dataset.failed || gettext("Selected: press Ctrl+C");
    const text = target.textContent;
    const fallback = function () {
      select(target);
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      say(button, ok ? copied : failed);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { say(button, copied); }, fallback);
    } else {
      fallback();
    }
  });
})();
