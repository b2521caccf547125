// The login form offers the browser's time zone (Asia/Tokyo, Europe/Paris...): the server takes
// it as the user's zone while they have chosen none, so dates are right from the first page.
(function () {
  "use strict";
  function fill() {
    let zone = "";
    try {
      zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (error) {
      return;
    }
    document.querySelectorAll("input[data-browser-time-zone]").forEach(function (input) {
      input.value = zone;
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fill);
  else fill();
})();
