// The scoring page by keyboard: a keypress decides in the browser at once, the decision goes to
// the server from a queue kept in this browser, and nothing waits for the server's reply.
//
// The server stays the authority: every decision carries what the page showed (the group's
// state, the key's version, whether the page was blind), and the server refuses one made
// against a page that no longer holds; the refusal is shown on the answer it concerns. Each
// queued decision has a key of its own, so a retry (a lost reply, a reload) applies it once.
(function () {
  "use strict";

  const RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];
  const PREFS = "blindprobe.scoring.prefs";

  function item() { return document.getElementById("scoring-item"); }
  function answers() { return Array.from(document.querySelectorAll("#scoring-item li.answer")); }
  function focused() { return document.activeElement && document.activeElement.closest ? document.activeElement.closest("li.answer") : null; }
  function helpOverlay() { return document.getElementById("help-overlay"); }
  function statusBox() { return document.getElementById("queue-status"); }
  function text(id) { const t = document.getElementById(id); return t ? t.content.textContent.trim() : ""; }

  function focusAnswer(li) { if (li) { li.focus({ preventScroll: true }); li.scrollIntoView({ block: "nearest" }); } }

  // ---- preferences (this browser) ----------------------------------------------------------
  function prefs() {
    try { return JSON.parse(localStorage.getItem(PREFS) || "{}"); } catch (e) { return {}; }
  }
  function setPref(name, value) {
    const p = prefs(); p[name] = value;
    try { localStorage.setItem(PREFS, JSON.stringify(p)); } catch (e) { /* private mode: kept for this page */ }
  }
  function autoAdvance() { return prefs().manualNext !== true; }
  function undecidedOnly() { return prefs().undecidedOnly === true; }

  // ---- the queue, kept in localStorage per assignment --------------------------------------
  let storeKey = null;
  let state = { ops: [], attention: [] };
  let inFlight = null;
  let retryTimer = null;
  let tries = 0;
  let lastJudged = null;  // the newest progress the server told: {judged, total}

  // This tab, across its reloads (sessionStorage is per tab): a refusal belongs to the tab whose
  // decision it refused, and another tab of the same browser never shows it as its own.
  const TAB = (function () {
    try {
      let id = sessionStorage.getItem("blindprobe.scoring.tab");
      if (!id) { id = newKey(); sessionStorage.setItem("blindprobe.scoring.tab", id); }
      return id;
    } catch (e) { return newKey(); }
  })();
  function mine(entry) { return entry.tab === TAB; }

  function recordUrl() { const holder = document.querySelector("[data-record-url]"); return holder ? holder.dataset.recordUrl : null; }

  function load() {
    const url = recordUrl();
    if (!url) return;
    storeKey = "blindprobe.scoring.queue:" + url;
    try { state = JSON.parse(localStorage.getItem(storeKey) || "null") || state; } catch (e) { /* keep the empty queue */ }
    state.ops = state.ops || [];
    // Only this tab's refusals: the others stay in storage for the tabs they belong to.
    state.attention = (state.attention || []).filter(mine);
    state.ops.forEach(function (op) { if (op.state === "sending") op.state = "waiting"; });
  }
  // Decisions this tab has finished with (sent and answered, or taken back unsent): another tab's
  // save must not bring them back from storage.
  let finished = [];
  function save() {
    if (!storeKey) return;
    let stored = null;
    try { stored = JSON.parse(localStorage.getItem(storeKey) || "null"); } catch (e) { /* none kept */ }
    stored = stored || {};
    // Tabs of one browser share this queue: keep what another tab queued and has not sent yet
    // (saving only this tab's list would erase it), and never what any tab has finished with.
    const done = (stored.done || []).concat(finished).slice(-500);
    const gone = new Set(done);
    const here = new Set(state.ops.map(function (op) { return op.key; }));
    const theirs = (stored.ops || []).filter(function (op) {
      return op.tab && op.tab !== TAB && !here.has(op.key) && !gone.has(op.key);
    });
    const others = (stored.attention || []).filter(function (a) { return a.tab && !mine(a); });
    const kept = { ops: state.ops.concat(theirs), attention: others.concat(state.attention), done: done };
    try { localStorage.setItem(storeKey, JSON.stringify(kept)); } catch (e) { /* storage full: the queue still lives in this page */ }
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const bytes = new Uint8Array(16); crypto.getRandomValues(bytes);
    return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }

  function pendingFor(position, tokens) {
    return state.ops.some(function (op) { return op.op === "decide" && op.position === position && op.tokens === tokens; });
  }

  function enqueue(op) {
    op.key = newKey();
    op.tab = TAB;
    op.state = "waiting";
    state.ops.push(op);
    // Whatever this item answers next is no longer what the server had when it was fetched.
    delete prefetched[op.position];
    save();
    render();
    pump();
  }

  // One decision as the server reads it.
  function wire(op) {
    if (op.op === "undo") return { key: op.key, op: "undo" };
    return {
      key: op.key, op: "decide", position: op.position, tokens: op.tokens,
      verdict: op.verdict, bucket: op.bucket, confirmed: !!op.confirmed, confirm_off: !!op.confirmOff,
      expect: op.expect, key_seen: op.keySeen, blind: !!op.blind,
      decided_at: op.decidedAt, shown_at: op.shownAt,
    };
  }

  // Everything queued goes in one request, in order; the next request waits for its reply.
  const BATCH = 50;
  function pump() {
    if (inFlight || !state.ops.length) { render(); return; }
    if (retryTimer) return;
    const batch = state.ops.slice(0, BATCH);
    batch.forEach(function (op) { op.state = "sending"; });
    inFlight = batch;
    render();
    fetch(recordUrl(), {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "Content-Type": "application/json" },
      body: JSON.stringify({ decisions: batch.map(wire) }),
    }).then(function (response) {
      if (response.status >= 500 || response.status === 401 || response.status === 403) {
        throw new Error(String(response.status));
      }
      return response.json().catch(function () { throw new Error("not json"); });
    }).then(function (reply) {
      inFlight = null; tries = 0;
      state.ops.splice(0, batch.length);
      batch.forEach(function (op) { finished.push(op.key); });
      finished = finished.slice(-500);
      batch.forEach(function (op, i) {
        settle(op, reply.outcomes ? reply.outcomes[i] : { status: "invalid", message: reply.message });
      });
      save();
      pump();
    }).catch(function () {
      inFlight = null;
      batch.forEach(function (op) { op.state = "failed"; });
      save();
      const wait = RETRY_MS[Math.min(tries, RETRY_MS.length - 1)];
      tries += 1;
      retryTimer = setTimeout(function () { retryTimer = null; pump(); }, wait);
      render();
    });
  }

  function retryNow() {
    if (retryTimer) { clearTimeout(retryTimer); retryTimer = null; }
    tries = 0;
    pump();
  }
  window.addEventListener("online", retryNow);

  function drained() {
    return new Promise(function (resolve) {
      (function check() { if (!state.ops.length) resolve(); else setTimeout(check, 50); })();
    });
  }

  // What the server answered: saved, or why not (shown on the answer until it is decided anew).
  function settle(op, outcome) {
    if (typeof outcome.judged === "number") lastJudged = { judged: outcome.judged, total: outcome.total, at: Date.now() };
    state.attention = state.attention.filter(function (a) { return !(a.position === op.position && a.tokens === op.tokens); });
    if (op.op === "undo") {
      const root = item();
      if (outcome.position) show(urlFor(outcome.position), { notice: outcome.message, fresh: true });
      else if (root) notice(outcome.message);
      return;
    }
    const li = rowFor(op.position, op.tokens);
    if (li) {
      li.dataset.state = outcome.state || "";
      paintState(li, outcome);
    }
    if (outcome.status === "saved") {
      if (outcome.message) notice(outcome.message);
      if (li) flashSaved(li);
      if (op.wasRecheck && !outcome.recheck) recheckDone(li, op.size || 1);
      return;
    }
    // Kept by the refused decision's own key, for this tab: not "sending" any more, not saved.
    state.attention.push({ key: op.key, tab: TAB, position: op.position, tokens: op.tokens, status: outcome.status, message: outcome.message, verdict: op.verdict, bucket: op.bucket });
    if (li) {
      const sync = li.querySelector("[data-sync]");
      if (sync) { sync.textContent = ""; sync.dataset.state = "refused"; }
      paintAttention(li);
    }
  }

  // ---- the page ------------------------------------------------------------------------------
  function rowFor(position, tokens) {
    const root = item();
    if (!root || Number(root.dataset.position) !== position) return null;
    return answers().find(function (li) { return li.dataset.tokens === tokens; }) || null;
  }

  function urlFor(position) {
    const root = item();
    return root.dataset.itemUrl.replace(/\/\d+\/$/, "/" + position + "/");
  }

  function chip(value, label) {
    const span = document.createElement("span");
    span.className = "bucket bucket-" + value;
    span.textContent = label;
    return span;
  }

  // The row's bucket chips from the server's state (or from a decision still on its way).
  function paintState(li, outcome) {
    const box = li.querySelector(".answer-state");
    box.querySelectorAll(".bucket, .undecided").forEach(function (el) { el.remove(); });
    const sync = box.querySelector("[data-sync]");
    const decided = outcome.buckets && outcome.buckets.length && !outcome.recheck;
    (outcome.buckets || []).forEach(function (b) { box.insertBefore(chip(b.value, b.label), sync); });
    if (!outcome.buckets || !outcome.buckets.length) {
      const none = document.createElement("span");
      none.className = "muted small undecided";
      none.textContent = text("t-undecided");
      box.insertBefore(none, sync);
    }
    li.classList.toggle("decided", !!decided);
    li.classList.remove("pending");
  }

  function flashSaved(li) {
    const sync = li.querySelector("[data-sync]");
    if (!sync) return;
    sync.textContent = text("t-saved");
    sync.dataset.state = "saved";
  }

  function paintAttention(li) {
    const root = item();
    const entry = state.attention.find(function (a) { return a.position === Number(root.dataset.position) && a.tokens === li.dataset.tokens; });
    let box = li.querySelector("[data-attention]");
    if (!entry) { if (box) box.remove(); li.classList.remove("attention"); return; }
    if (!box) {
      box = document.createElement("div");
      box.className = "attention-panel";
      box.setAttribute("role", "alert");
      box.setAttribute("data-attention", "");
      li.appendChild(box);
    }
    li.classList.add("attention");
    box.replaceChildren();
    const p = document.createElement("p");
    p.textContent = entry.message;
    box.appendChild(p);
    if (entry.status === "confirm") {
      box.appendChild(confirmButtons(li, { verdict: entry.verdict, bucket: entry.bucket }));
    }
  }

  // The state of every row from what is still queued for it, and what the server refused.
  function overlay() {
    const root = item();
    if (!root) return;
    const position = Number(root.dataset.position);
    state.ops.forEach(function (op) {
      if (op.op !== "decide" || op.position !== position) return;
      const li = rowFor(position, op.tokens);
      if (li) markPending(li, op);
    });
    const before = state.attention.length;
    state.attention = state.attention.filter(function (a) {
      if (a.position !== position) return true;
      const li = rowFor(position, a.tokens);
      return !(li && li.dataset.state && li.dataset.state === wanted(a));
    });
    if (state.attention.length !== before) save();
    answers().forEach(paintAttention);
    paintRechecks();
    root.classList.toggle("only-undecided", undecidedOnly());
    const filter = document.getElementById("undecided-only");
    if (filter) filter.checked = undecidedOnly();
    const advance = document.getElementById("auto-advance");
    if (advance) advance.checked = autoAdvance();
  }

  // The bucket a refused decision asked for, where the page can tell it (W leaves it to the server).
  function wanted(entry) {
    if (entry.bucket) return entry.bucket;
    return entry.verdict === "correct" ? "correct" : null;
  }

  // The answers one row stands for (its "×n"; the markup carries nothing else of it).
  function groupSize(li) {
    const size = li.querySelector(".group-size");
    return size ? Number(size.textContent.replace(/\D/g, "")) || 1 : 1;
  }

  // ---- re-checks: the row's labels and the count in the banner, kept true after a decision -----
  let recheckCount = null;  // the newest count this page knows: {n, at}
  function recheckDone(li, size) {
    if (li) {
      li.classList.remove("recheck");
      li.querySelectorAll(".recheck-tag, .recheck-detail").forEach(function (el) { el.remove(); });
    }
    const banner = document.querySelector("#scoring-item [data-rechecks]");
    const base = recheckCount ? recheckCount.n : (banner ? Number(banner.dataset.rechecks) : 0);
    recheckCount = { n: Math.max(0, base - size), at: Date.now() };
    paintRechecks();
  }
  function paintRechecks() {
    const banner = document.querySelector("#scoring-item [data-rechecks]");
    if (!banner || !recheckCount) return;
    const n = recheckCount.n;
    banner.dataset.rechecks = n;
    banner.hidden = n === 0;
    const label = banner.querySelector("[data-recheck-text]");
    if (label) label.textContent = interpolate(ngettext("A key was amended: %s answer you judged is back for a re-check.", "A key was amended: %s answers you judged are back for a re-check.", n), [n]);
  }

  function markPending(li, op) {
    const box = li.querySelector(".answer-state");
    box.querySelectorAll(".bucket, .undecided").forEach(function (el) { el.remove(); });
    box.insertBefore(chip(op.bucket || op.verdict, op.label), box.querySelector("[data-sync]"));
    li.classList.add("decided", "pending");
    li.classList.remove("recheck");
  }

  function render() {
    const root = item();
    if (root) {
      root.querySelectorAll("li.answer").forEach(function (li) {
        const sync = li.querySelector("[data-sync]");
        if (!sync) return;
        const position = Number(root.dataset.position);
        const op = state.ops.find(function (o) { return o.op === "decide" && o.position === position && o.tokens === li.dataset.tokens; });
        if (op) { sync.textContent = text(op.state === "failed" ? "t-failed" : "t-sending"); sync.dataset.state = op.state; }
      });
      progress();
    }
    const box = statusBox();
    if (!box) { startStatus(); return; }
    const waiting = state.ops.length;
    const failed = state.ops.some(function (op) { return op.state === "failed"; });
    const message = box.querySelector("[data-status-text]");
    const retry = box.querySelector("[data-retry]");
    const link = box.querySelector("[data-attention-link]");
    box.dataset.state = failed ? "failed" : waiting ? "sending" : "saved";
    if (failed) message.textContent = interpolate(ngettext("%s decision not saved yet: the server cannot be reached. It is kept in this browser and sent when the server answers.", "%s decisions not saved yet: the server cannot be reached. They are kept in this browser and sent when the server answers.", waiting), [waiting]);
    else if (waiting) message.textContent = interpolate(ngettext("Saving %s decision…", "Saving %s decisions…", waiting), [waiting]);
    const open = state.attention.length;
    if (!failed && !waiting) message.textContent = open ? gettext("Every other decision is saved.") : gettext("Every decision is saved.");
    retry.hidden = !failed;
    link.hidden = !open;
    if (open) {
      link.textContent = interpolate(ngettext("%(n)s decision needs you: item %(item)s", "%(n)s decisions need you: first on item %(item)s", open), { n: open, item: state.attention[0].position }, true);
      link.href = urlFor(state.attention[0].position);
    }
  }

  // The start page: decisions this browser has not sent yet are said, and sent from here too.
  function startStatus() {
    const box = document.getElementById("queue-start");
    if (!box) return;
    const waiting = state.ops.length;
    box.hidden = !waiting;
    if (waiting) box.querySelector("[data-status-text]").textContent = interpolate(ngettext("%s decision not sent yet from this browser: sending it now. The reveal waits for it.", "%s decisions not sent yet from this browser: sending them now. The reveal waits for them.", waiting), [waiting]);
  }

  // Judged: the server's newest count, plus the new decisions still on their way.
  function progress() {
    const root = item();
    if (!root) return;
    const base = lastJudged || { judged: Number(root.dataset.judged), total: Number(root.dataset.total) };
    const waiting = state.ops.filter(function (op) { return op.isNew; }).length;
    const judged = Math.min(base.judged + waiting, base.total);
    // The answers set before the scorer began count as decided, not as judged by them.
    const preset = Math.min(Number(root.dataset.preset) || 0, judged);
    const own = judged - preset, ownTotal = base.total - preset;
    const label = root.querySelector("[data-progress-text]");
    if (label) label.textContent = interpolate(gettext("%(j)s / %(t)s judged by you"), { j: own, t: ownTotal }, true);
    const bar = root.querySelector(".progress");
    if (bar) { bar.setAttribute("aria-valuenow", own); bar.setAttribute("aria-valuemax", ownTotal); }
    const fill = root.querySelector(".progress span");
    if (fill) fill.style.width = (ownTotal ? Math.round(100 * own / ownTotal) : 100) + "%";
    const reveal = root.querySelector("[data-reveal]");
    if (reveal) reveal.hidden = judged < base.total;
  }

  function notice(message) {
    const root = item();
    if (!root || !message) return;
    let box = root.querySelector("[data-client-notice]");
    if (!box) {
      box = document.createElement("p");
      box.className = "message success";
      box.setAttribute("role", "status");
      box.setAttribute("data-client-notice", "");
      root.querySelector(".question-card").before(box);
    }
    box.textContent = message;
  }

  // ---- moving between items ------------------------------------------------------------------
  const prefetched = {};  // position -> Promise of the fragment's HTML, fetched ahead of time

  // The fragment, the address it stands for (next-open answers with the item it chose), and
  // when it was asked for (a count in it is no newer than that).
  function fetchFragment(url, ahead) {
    const target = ahead ? url + (url.indexOf("?") < 0 ? "?" : "&") + "prefetch=1" : url;
    const at = Date.now();
    return fetch(target, { credentials: "same-origin", headers: { "HX-Request": "true" } }).then(function (response) {
      if (!response.ok && response.status !== 400) throw new Error(String(response.status));
      return response.text().then(function (html) {
        return { html: html, url: response.headers.get("HX-Push-Url") || url, at: at };
      });
    });
  }

  // The next few items, fetched while the scorer reads this one: moving on needs no round
  // trip, and a lost connection leaves them some items to go on with.
  const AHEAD = 5;
  function prefetchNext() {
    const root = item();
    if (!root) return;
    const here = Number(root.dataset.position);
    const last = Math.min(Number(root.dataset.nItems), here + AHEAD);
    const pending = state.ops.map(function (op) { return op.position; });
    function ahead(p) {
      if (pending.indexOf(p) >= 0 || prefetched[p]) return prefetched[p] || null;
      prefetched[p] = fetchFragment(urlFor(p), true).catch(function () { delete prefetched[p]; return null; });
      return prefetched[p];
    }
    // The next item first and alone, as soon as the page is shown: moving on right after the
    // page loads finds it on its way, not queued behind the items after it.
    const next = here + 1 <= last ? ahead(here + 1) : null;
    const rest = function () { for (let p = here + 2; p <= last; p++) ahead(p); };
    if (next) next.then(rest, rest); else rest();
  }

  function swapIn(fragment, extra) {
    const template = document.createElement("template");
    template.innerHTML = fragment.html;
    const fresh = template.content.querySelector("#scoring-item");
    const root = item();
    if (!fresh || !root) { window.location.href = fragment.url; return; }
    root.replaceWith(fresh);
    if (window.htmx) htmx.process(fresh);
    const path = new URL(fragment.url, window.location.href).pathname;
    if (window.location.pathname !== path) history.pushState({}, "", path);
    if (lastJudged && fragment.at > lastJudged.at) lastJudged = null;
    if (recheckCount && fragment.at > recheckCount.at) recheckCount = null;
    shown(extra || {});
  }

  function show(url, extra) {
    const position = Number((url.match(/\/(\d+)\/(?:\?.*)?$/) || [])[1]);
    const ready = !(extra && extra.fresh) && prefetched[position];
    delete prefetched[position];
    Promise.resolve(ready || fetchFragment(url, false)).then(function (fragment) {
      if (fragment) swapIn(fragment, extra);
      else return fetchFragment(url, false).then(function (f) { swapIn(f, extra); });
    }).catch(showRequestError);
  }

  function advance() {
    const root = item();
    const position = Number(root.dataset.position);
    if (root.dataset.nextUrl) { show(root.dataset.nextUrl, { auto: true }); return; }
    const reveal = root.querySelector("[data-reveal]");
    if (reveal && !reveal.hidden) { reveal.focus(); return; }
    // The last item: the server knows what is still open once it has every decision.
    drained().then(function () {
      fetchFragment(root.dataset.nextOpenUrl, false).then(function (f) { swapIn(f, {}); }).catch(showRequestError);
    });
  }

  let shownAt = Date.now();
  let shownPosition = null;
  function shown(extra) {
    const root = item();
    if (root && root.dataset.position !== shownPosition) {
      shownAt = Date.now();
      if (shownPosition !== null) rememberPosition(root);
      shownPosition = root.dataset.position;
    }
    overlay();
    render();
    opinionLink();
    if (extra.notice) notice(extra.notice);
    // Moving on by itself: an item with nothing left to decide (every answer UNKNOWN, or
    // decided in an earlier visit) is passed over too.
    if (extra.auto && root && !answers().some(function (li) { return !li.classList.contains("decided"); })) {
      if (root.dataset.nextUrl) { show(root.dataset.nextUrl, { auto: true }); return; }
    }
    placeFocus();
    prefetchNext();
  }

  // Where to resume: the server keeps the item shown (a page's GET writes nothing; a decision
  // says where it was made). Nothing waits for it, and a failure costs only the resume point.
  function rememberPosition(root) {
    if (!root.dataset.itemUrl) return;
    fetch(root.dataset.itemUrl, {
      method: "POST", credentials: "same-origin", keepalive: true,
      headers: { "X-CSRFToken": csrfToken() },
    }).catch(function () { /* the next decision says it */ });
  }

  // After each swap: put focus where the scorer will act next.
  function placeFocus() {
    const root = item();
    if (!root) return;
    const confirm = root.querySelector("[data-confirm-wrong]");
    const disputeOnly = root.querySelector(".confirm-panel.dispute-only [data-dispute-note]");
    if (disputeOnly) { disputeOnly.focus(); return; }
    if (confirm) { confirm.focus(); return; }
    const opinion = root.querySelector("li.answer [data-opinion-pending]");
    if (opinion) { focusAnswer(opinion.closest("li.answer")); return; }
    const list = answers();
    const after = root.dataset.focusAfter;
    let start = 0;
    if (after) start = list.findIndex(function (li) { return li.dataset.tokens === after; }) + 1;
    const open = list.slice(start).concat(list.slice(0, start)).find(function (li) { return !li.classList.contains("decided"); });
    if (open) { focusAnswer(open); return; }
    const next = root.querySelector("[data-next], [data-reveal]:not([hidden])");
    if (next) next.focus(); else if (list.length) focusAnswer(list[0]);
  }

  // ---- deciding ------------------------------------------------------------------------------
  function buttonFor(li, key) {
    return li.querySelector('.answer-actions button[data-key="' + key + '"]');
  }

  function labelOf(button) {
    const clone = button.cloneNode(true);
    clone.querySelectorAll("kbd").forEach(function (k) { k.remove(); });
    return clone.textContent.trim();
  }

  // Turned off for this session here: fragments fetched ahead do not know it yet.
  function confirmOffHere() {
    try { return sessionStorage.getItem("blindprobe.scoring.confirm-off:" + recordUrl()) === "1"; } catch (e) { return false; }
  }

  function needsConfirm(li, action) {
    const root = item();
    const wrong = action.verdict === "wrong" || action.confidentWrong;
    // Asked for a HIGH-confidence answer (its chip is on the row), never for a re-check.
    if (!wrong || !li.querySelector(".conf-high") || li.classList.contains("recheck")) return false;
    const mode = root.dataset.confirm;
    if (mode === "never" || mode === "off" || confirmOffHere()) return false;
    if (mode === "once") return !root.dataset.confirmedItem;
    return true;
  }

  function actionOf(button) {
    return {
      verdict: button.name === "verdict" ? button.value : "",
      bucket: button.name === "bucket" ? button.value : "",
      confidentWrong: button.hasAttribute("data-confident-wrong"),
      label: labelOf(button),
    };
  }

  function decide(li, key) {
    if (!li || li.querySelector("[data-client-confirm]")) return false;
    const button = buttonFor(li, key === "1" ? "c" : key);
    if (!button) return false;
    const action = actionOf(button);
    if (action.verdict === "wrong" && li.querySelector("[data-choose]") && !li.classList.contains("decided")) {
      notice(text("t-choose"));
      return true;
    }
    if (needsConfirm(li, action)) { openConfirm(li, action); return true; }
    record(li, action, false, false);
    return true;
  }

  // Shift + a bucket's key: every answer of the item still undecided gets that bucket ("the
  // rest are correct"). Each is its own decision on the server, which still asks before a HIGH
  // answer is marked wrong: here the question is asked once, on the first such answer.
  function decideRest(current, key) {
    const rows = answers().filter(function (x) { return !x.classList.contains("decided") && !x.querySelector("[data-client-confirm]"); });
    if (!rows.length) return false;
    const button = buttonFor(rows[0], key === "1" ? "c" : key);
    if (!button) return false;
    const action = actionOf(button);
    // A wrong answer whose confidence leaves the bucket open needs its bucket chosen: left so.
    const targets = action.verdict === "wrong" ? rows.filter(function (x) { return !x.querySelector("[data-choose]"); }) : rows;
    if (!targets.length) { notice(text("t-choose")); return true; }
    action.rows = targets;
    const asking = targets.find(function (x) { return needsConfirm(x, action); });
    if (asking) { openConfirm(asking, action); return true; }
    record(targets[0], action, false, false);
    return true;
  }

  // One decision (or, for the rest of an item, one per answer, moving on after the last).
  function record(li, action, confirmed, confirmOff, stay) {
    if (action.rows) {
      const rows = action.rows;
      const one = Object.assign({}, action, { rows: null });
      rows.forEach(function (row, i) { record(row, one, confirmed, confirmOff, i < rows.length - 1); });
      return;
    }
    const root = item();
    const position = Number(root.dataset.position);
    const tokens = li.dataset.tokens;
    const queued = pendingFor(position, tokens);
    if (confirmed && root.dataset.confirm === "once") root.dataset.confirmedItem = "1";
    if (confirmOff) {
      root.dataset.confirm = "off";
      try { sessionStorage.setItem("blindprobe.scoring.confirm-off:" + recordUrl(), "1"); } catch (e) { /* the server remembers it too */ }
    }
    state.attention = state.attention.filter(function (a) { return !(a.position === position && a.tokens === tokens); });
    const op = {
      op: "decide",
      position: position,
      tokens: tokens,
      verdict: action.verdict,
      bucket: action.bucket,
      label: action.label,
      confirmed: confirmed,
      confirmOff: confirmOff,
      // A decision still queued for this answer goes first: the server checks nothing else.
      expect: queued ? "*" : li.dataset.state,
      isNew: !queued && li.dataset.state === "",
      keySeen: root.dataset.keyVersion,
      blind: root.dataset.blind === "1",
      decidedAt: Date.now(),
      shownAt: shownAt,
      // A re-check answered: its labels and the banner's count follow once it is saved.
      wasRecheck: li.classList.contains("recheck"),
      size: groupSize(li),
    };
    markPending(li, op);
    paintAttention(li);
    enqueue(op);
    if (!stay) moveOn(li);
  }

  // The next undecided answer at once; once every answer is decided, the next item.
  function moveOn(li) {
    const list = answers();
    const start = list.indexOf(li) + 1;
    const open = list.slice(start).concat(list.slice(0, start)).find(function (x) { return !x.classList.contains("decided"); });
    if (open) { focusAnswer(open); return; }
    const root = item();
    root.dataset.itemDone = "1";
    const next = root.querySelector("[data-next]");
    if (next) next.classList.add("primary");
    if (autoAdvance()) { advanceOrOpinion(root); return; }
    const reveal = root.querySelector("[data-reveal]:not([hidden])");
    (next || reveal || li).focus();
  }

  // Once the item is committed the server may have a second opinion on it (grading). The next
  // item opens at once, as always; once the item's decisions are saved it is asked for again in
  // the background, and a second opinion waiting there is named in the status line (V opens
  // it). Before the commit nothing of it exists in the page, and nothing here waits for it.
  const opinionsWaiting = [];
  function advanceOrOpinion(root) {
    const position = Number(root.dataset.position);
    advance();
    drained().then(function () {
      return fetchFragment(urlFor(position), false);
    }).then(function (fragment) {
      if (!fragment || fragment.html.indexOf("data-opinion-pending") < 0) return;
      if (opinionsWaiting.indexOf(position) < 0) opinionsWaiting.push(position);
      opinionLink();
    }).catch(function () { /* the item's page shows it when visited */ });
  }

  function opinionLink() {
    const link = document.querySelector("#queue-status [data-opinion-link]");
    if (!link) return;
    const here = item() ? Number(item().dataset.position) : null;
    const open = opinionsWaiting.filter(function (p) { return p !== here; });
    link.hidden = !open.length;
    if (!open.length) return;
    link.textContent = interpolate(ngettext("A second opinion waits on item %(item)s (V)", "Second opinions wait on %(n)s items, first on item %(item)s (V)", open.length), { n: open.length, item: open[0] }, true);
    link.href = urlFor(open[0]);
  }

  function openOpinion() {
    const link = document.querySelector("#queue-status [data-opinion-link]");
    if (!link || link.hidden) return false;
    const position = opinionsWaiting.find(function (p) { return !item() || p !== Number(item().dataset.position); });
    opinionsWaiting.splice(opinionsWaiting.indexOf(position), 1);
    go(urlFor(position));
    return true;
  }

  // "Keep mine" (Y) or "take the grader's" (T) on the focused answer's second opinion.
  function answerOpinion(li, key) {
    const root = item();
    const row = (li && li.querySelector("[data-opinion-pending]")) ? li : root.querySelector("li.answer [data-opinion-pending]");
    const button = row ? row.closest("li.answer").querySelector('[data-opinion-pending] button[data-opinion-key="' + key + '"]') : null;
    if (!button) return false;
    button.click();
    return true;
  }

  function confirmButtons(li, action) {
    const template = document.getElementById("confirm-buttons");
    const buttons = template.content.firstElementChild.cloneNode(true);
    buttons.querySelector("[data-confirm-wrong]").addEventListener("click", function () { closeConfirm(li); record(li, action, true, false); });
    buttons.querySelector("[data-confirm-off]").addEventListener("click", function () { closeConfirm(li); record(li, action, true, true); });
    return buttons;
  }

  function openConfirm(li, action) {
    const template = document.getElementById("confirm-template");
    const panel = template.content.firstElementChild.cloneNode(true);
    panel.querySelector("p").after(confirmButtons(li, action));
    panel.querySelector("[data-cancel]").addEventListener("click", function () { closeConfirm(li); focusAnswer(li); });
    li.appendChild(panel);
    panel.querySelector("[data-confirm-wrong]").focus();
  }

  function closeConfirm(li) {
    const panel = li.querySelector("[data-client-confirm]");
    if (panel) panel.remove();
  }

  function undo() {
    const last = state.ops[state.ops.length - 1];
    if (last && last.op === "decide" && !(inFlight && inFlight.indexOf(last) >= 0)) {
      // Not sent yet: taken back here, the server never hears of it.
      state.ops.pop();
      finished.push(last.key);
      save();
      if (item()) show(urlFor(last.position), { notice: gettext("Undone."), fresh: true });
      render();
      return;
    }
    enqueue({ op: "undo", position: 0, tokens: "" });
  }

  // ---- events --------------------------------------------------------------------------------
  // htmx swaps (the item links, next open, the server's own fragments): the same as ours.
  document.addEventListener("htmx:afterSwap", function () {
    if (item()) shown({});
  });
  document.addEventListener("DOMContentLoaded", function () {
    load();
    if (item()) shown({});
    pump();
  });
  window.addEventListener("popstate", function () { if (item()) show(window.location.href, { fresh: true }); });

  // A request that failed without a message of ours (a server error, the network): say so in
  // the page instead of doing nothing. Fragments with a message (400, 409) are swapped in.
  document.addEventListener("htmx:responseError", showRequestError);
  document.addEventListener("htmx:sendError", showRequestError);
  function showRequestError() {
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

  // Shortcuts by the key's place, so they work with a Japanese IME on (app.js).
  const shortcutKey = window.shortcutKeys.key;
  const composing = window.shortcutKeys.composing;
  function isTextField(el) {
    return !!(el && el.matches && (el.matches("textarea, input:not([type=checkbox]):not([type=radio]), select") || el.isContentEditable));
  }
  // Where the IME still swallows a key (no code to read), say what to do, once per page.
  function imeHint() {
    const root = item() || document.getElementById("scoring-overview");
    if (!root || root.querySelector("[data-ime-hint]")) return;
    const hint = document.createElement("p");
    hint.className = "small muted ime-hint";
    hint.setAttribute("role", "status");
    hint.setAttribute("data-ime-hint", "");
    hint.textContent = gettext("A shortcut was taken by the input method: switch to half-width (direct) input to use the keyboard shortcuts.");
    root.prepend(hint);
  }
  // A composition started outside a text field (the IME caught a key on an answer): it has
  // nowhere to go, so nothing is typed, but the scorer should know why a key did nothing.
  document.addEventListener("compositionstart", function (event) {
    if (!isTextField(event.target)) imeHint();
  });

  // The item overview: a number and Enter jumps (the form), arrows move, O and Esc leave.
  function overviewKey(overview, event) {
    const links = Array.from(overview.querySelectorAll(".overview-grid a"));
    const index = links.indexOf(document.activeElement);
    const inField = event.target.matches("input");
    const key = shortcutKey(event);
    if (key === "Escape") { event.preventDefault(); overview.querySelector("[data-back]").click(); return; }
    if (inField && key === "ArrowDown") { event.preventDefault(); (overview.querySelector(".current a") || links[0]).focus(); return; }
    if (inField) return;
    const step = { ArrowRight: 1, ArrowLeft: -1, l: 1, h: -1 }[key];
    if (step && links.length) { event.preventDefault(); links[Math.max(0, Math.min(links.length - 1, index + step))].focus(); return; }
    if (key === "o" || key === "O") { event.preventDefault(); overview.querySelector("[data-next-open]").click(); return; }
    if (/^[0-9]$/.test(key)) {
      const field = overview.querySelector("[data-jump]");
      field.value = ""; field.focus();  // the digit then lands in the field
      if (composing(event)) { event.preventDefault(); field.value = key; }  // not as IME text
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

  function toggleHelp(show) {
    const overlay = helpOverlay();
    if (!overlay) return;
    overlay.hidden = show === undefined ? !overlay.hidden : !show;
    if (!overlay.hidden) overlay.querySelector("[data-close-help]").focus(); else placeFocus();
  }

  function go(url) { if (url) show(url, {}); }

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-open-help]")) toggleHelp(true);
    if (event.target.closest("[data-close-help]")) toggleHelp(false);
    if (event.target.closest("[data-undo]")) undo();
    if (event.target.closest("[data-retry]")) retryNow();
    const button = event.target.closest("#scoring-item .answer-actions button[data-key]");
    if (button) {
      // A click decides like its key does (the form posts only without this script).
      event.preventDefault();
      const li = button.closest("li.answer");
      focusAnswer(li);
      decide(li, button.dataset.key);
    }
    const reveal = event.target.closest("#scoring-item [data-reveal], [data-start-reveal]");
    if (reveal && state.ops.length) {
      // The reveal counts what the server has: send what is queued first.
      event.preventDefault();
      drained().then(function () { window.location.href = reveal.href; });
    }
  });

  document.addEventListener("change", function (event) {
    if (event.target.id === "auto-advance") setPref("manualNext", !event.target.checked);
    if (event.target.id === "undecided-only") {
      setPref("undecidedOnly", event.target.checked);
      const root = item();
      if (root) root.classList.toggle("only-undecided", event.target.checked);
    }
  });

  function confirmKey(panel, event) {
    const key = shortcutKey(event);
    if (key === "Escape") { event.preventDefault(); panel.querySelector("[data-cancel]").click(); return true; }
    if (key === "a" || key === "A") { event.preventDefault(); panel.querySelector("[data-confirm-off]").click(); return true; }
    if (key === "Enter" && !event.target.matches("button")) { event.preventDefault(); panel.querySelector("[data-confirm-wrong]").click(); return true; }
    if (key === "d" || key === "D") {
      event.preventDefault();
      const li = panel.closest("li.answer");
      go(window.location.pathname + "?dispute=" + encodeURIComponent(li.dataset.tokens));
      return true;
    }
    return key !== "Tab" && key !== "Enter";  // nothing else acts while the question is open
  }

  document.addEventListener("keydown", function (event) {
    // Ctrl+Enter in the dispute note is app.js's (it saves any form).
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // In a note or a dispute form the IME types as it should: its keys are text, not shortcuts.
    if (composing(event) && isTextField(event.target)) return;
    if (composing(event) && !shortcutKey(event)) { imeHint(); return; }
    const overlay = helpOverlay();
    if (overlay && !overlay.hidden) {
      const key = shortcutKey(event);
      if (key === "Escape" || key === "?") { event.preventDefault(); toggleHelp(false); }
      return;
    }
    const overview = document.getElementById("scoring-overview");
    if (overview) { overviewKey(overview, event); return; }
    const root = item();
    if (!root) return;
    const panel = event.target.closest && event.target.closest("[data-client-confirm]");
    if (panel) { if (confirmKey(panel, event)) event.preventDefault(); return; }
    const typing = event.target.matches("textarea, input:not([type=checkbox]), select");
    if (shortcutKey(event) === "Escape") {
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
    const list = answers().filter(function (li) { return li.offsetParent !== null; });
    const current = focused();
    const index = current ? list.indexOf(current) : -1;
    const key = shortcutKey(event);
    let handled = true;
    if (key === "?") toggleHelp(true);
    else if (key === "ArrowDown" || key === "j") focusAnswer(list[Math.min(index + 1, list.length - 1)] || list[0]);
    else if (key === "ArrowUp" || key === "k") focusAnswer(list[Math.max(index - 1, 0)]);
    else if (event.shiftKey && ["c", "C", "w", "W", "1", "2", "3", "4"].includes(key)) handled = decideRest(current, key.toLowerCase());
    else if (key === "c" || key === "C") handled = decide(current, "c");
    else if (key === "w" || key === "W" || key === "x") handled = decide(current, "w");
    else if (["1", "2", "3", "4"].includes(key)) handled = decide(current, key);
    else if (key === "u" || key === "U") undo();
    else if (key === "n" || key === "ArrowRight") go(root.dataset.nextUrl);
    else if (key === "o" || key === "O") drained().then(function () { go(root.dataset.nextOpenUrl); });
    else if (key === "g" || key === "G") { const link = root.querySelector("[data-overview]"); if (link) drained().then(function () { window.location.href = link.href; }); }
    else if (key === "y" || key === "Y") handled = answerOpinion(current, "y");
    else if (key === "t" || key === "T") handled = answerOpinion(current, "t");
    else if (key === "v" || key === "V") handled = openOpinion();
    else if (key === "m" || key === "M") handled = openNote(current);
    else if (key === "f" || key === "F") { const box = document.getElementById("undecided-only"); if (box) box.click(); }
    else if (key === "p" || key === "ArrowLeft") go(root.dataset.prevUrl);
    else if (key === "Enter" && root.dataset.itemDone && !event.target.matches("button, a, summary")) advance();
    else if (key === "d" || key === "D") {
      const li = current || list[0];
      if (li) go(window.location.pathname + "?dispute=" + encodeURIComponent(li.dataset.tokens));
    } else handled = false;
    if (handled) event.preventDefault();
  });
})();
