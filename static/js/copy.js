// Copy buttons (`data-copy="#element-id"` copies that element's exact text), and the warning
// on the experiment form when repeats is set to 1 (`data-warn-one="#warning-id"`).
(function () {
  "use strict";
  function fallbackCopy(text) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-copy]");
    if (!button) return;
    event.preventDefault();
    const source = document.querySelector(button.getAttribute("data-copy"));
    if (!source) return;
    // textContent, not innerText: the exact characters, whitespace and line breaks included.
    const text = source.value !== undefined && source.tagName === "TEXTAREA" ? source.value : source.textContent;
    const copy = navigator.clipboard && window.isSecureContext
      ? navigator.clipboard.writeText(text) : fallbackCopy(text);
    const status = button.parentElement.querySelector("[data-copy-status]");
    copy.then(function () {
      if (status) status.textContent = button.getAttribute("data-copied") || "Copied.";
    }, function () {
      if (status) status.textContent = button.getAttribute("data-copy-failed") || "Select the text and copy it by hand.";
    });
  });
  function updateWarning(input) {
    const warning = document.querySelector(input.getAttribute("data-warn-one"));
    if (warning) warning.hidden = String(input.value).trim() !== "1";
  }
  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("[data-warn-one]")) updateWarning(event.target);
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-warn-one]").forEach(updateWarning);
  });
})();
