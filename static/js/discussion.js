// Mentions in a comment: typing "@" and the start of a name opens a list of the team's members
// (an htmx fragment from the server); ArrowDown/ArrowUp move in it, Enter or Tab puts
// "@username " in the text, Escape closes it. Nothing inline: delegated from the document, so
// threads swapped in by htmx work too. A composing IME keeps its keys.
(function () {
  "use strict";
  var BEFORE = /(?:^|[^\w@.+-])@([\w.+-]*)$/;

  function listOf(area) {
    var field = area.closest(".mention-field");
    return field && field.querySelector(".mention-list");
  }
  function options(list) {
    return Array.prototype.slice.call(list.querySelectorAll("[role=option][data-username]"));
  }
  function close(area, list) {
    list.hidden = true;
    list.innerHTML = "";
    area.setAttribute("aria-expanded", "false");
    area.removeAttribute("aria-activedescendant");
  }
  function select(area, list, index) {
    var all = options(list);
    if (!all.length) return;
    index = (index + all.length) % all.length;
    all.forEach(function (option, i) {
      option.setAttribute("aria-selected", i === index ? "true" : "false");
    });
    area.setAttribute("aria-activedescendant", all[index].id);
  }
  function current(list) {
    var all = options(list);
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute("aria-selected") === "true") return i;
    }
    return 0;
  }
  function query(area) {
    var match = BEFORE.exec(area.value.slice(0, area.selectionStart));
    return match ? match[1] : null;
  }
  function insert(area, list, option) {
    var caret = area.selectionStart;
    var before = area.value.slice(0, caret);
    var match = BEFORE.exec(before);
    if (!match) return;
    var start = caret - match[1].length - 1;
    var text = "@" + option.dataset.username + " ";
    area.value = area.value.slice(0, start) + text + area.value.slice(caret);
    area.selectionStart = area.selectionEnd = start + text.length;
    close(area, list);
    area.focus();
  }
  function prepare(area, list) {
    if (!list.id) list.id = "mentions-" + Math.random().toString(36).slice(2, 10);
    area.setAttribute("aria-autocomplete", "list");
    area.setAttribute("aria-controls", list.id);
  }

  document.addEventListener("input", function (event) {
    var area = event.target;
    if (!area.matches || !area.matches("textarea[data-mentions]")) return;
    var list = listOf(area);
    if (!list) return;
    prepare(area, list);
    var q = query(area);
    if (q === null) { close(area, list); return; }
    var url = list.dataset.mentionUrl + "?q=" + encodeURIComponent(q);
    window.htmx.ajax("GET", url, { target: list, swap: "innerHTML" }).then(function () {
      if (query(area) === null) { close(area, list); return; }
      options(list).forEach(function (option, i) { option.id = list.id + "-" + i; });
      list.hidden = false;
      area.setAttribute("aria-expanded", "true");
      select(area, list, 0);
    });
  });

  document.addEventListener("keydown", function (event) {
    var area = event.target;
    if (!area.matches || !area.matches("textarea[data-mentions]")) return;
    if (event.isComposing || event.keyCode === 229) return;
    var list = listOf(area);
    if (!list || list.hidden) return;
    var all = options(list);
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(area, list);
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!all.length) return;
      event.preventDefault();
      select(area, list, current(list) + (event.key === "ArrowDown" ? 1 : -1));
    } else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
      if (!all.length) return;
      event.preventDefault();
      event.stopPropagation();
      insert(area, list, all[current(list)]);
    }
  }, true);

  document.addEventListener("mousedown", function (event) {
    var option = event.target.closest && event.target.closest(".mention-list [role=option][data-username]");
    if (!option) return;
    event.preventDefault();
    var area = option.closest(".mention-field").querySelector("textarea[data-mentions]");
    insert(area, option.closest(".mention-list"), option);
  });

  document.addEventListener("focusout", function (event) {
    var area = event.target;
    if (!area.matches || !area.matches("textarea[data-mentions]")) return;
    var list = listOf(area);
    if (list) setTimeout(function () { if (document.activeElement !== area) close(area, list); }, 150);
  });
})();
