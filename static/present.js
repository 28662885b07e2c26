// Instructor mode's script: keys for the presenter (and a clicker), page
// swaps without a reload, and a room followed live. Every control it
// presses is a link or a form that works without it.
(function () {
  "use strict";

  function main() { return document.getElementById("lab"); }

  // ---- Swapping the page: fetch the next page, put its <main> in place
  // of ours, keep the address bar on it. Any answer is swapped, an error
  // page too; only a good one moves the address.
  // wanted is the newest room version an event announced: a page older
  // than that is fetched again, once the request in flight is done.
  var busy = false, queued = null, wanted = 0;
  var liveState = ""; // the event stream's state, kept across swaps
  var stopped = false; // the lab has stopped: say so on every page swapped in
  // reveal is the panel to bring into view after the swap: on a projector
  // the source or the timeline opens below the cards, out of sight, and a
  // clicker has no key to scroll with.
  var reveal = null;
  var panels = { "p-source": "p-source-panel", "p-timeline": "p-timeline-panel" };
  // opener is what had the focus when the keys help opened: closing the
  // help gives the focus back to it.
  var opener = null;

  function swapIn(html, url, ok) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var next = doc.getElementById("lab"), cur = main();
    if (!next || !cur) { location.href = url; return; }
    var focused = document.activeElement && document.activeElement.id;
    var helpOpen = document.getElementById("p-help");
    helpOpen = helpOpen && helpOpen.open;
    // The narration is a live region: keep its node and change its text,
    // so that a screen reader announces the new step.
    var said = document.getElementById("narration"), says = next.querySelector("#narration");
    var text = says && says.textContent;
    if (said && says) says.replaceWith(said);
    cur.getAttributeNames().forEach(function (n) { cur.removeAttribute(n); });
    next.getAttributeNames().forEach(function (n) { cur.setAttribute(n, next.getAttribute(n)); });
    cur.replaceChildren.apply(cur, Array.prototype.slice.call(document.adoptNode(next).childNodes));
    if (said && says && said.textContent !== text) said.textContent = text;
    if (doc.title) document.title = doc.title;
    if (ok && url) history.replaceState(null, "", url);
    var help = document.getElementById("p-help");
    if (help && helpOpen) help.open = true;
    var live = document.getElementById("p-live");
    if (live && liveState) live.setAttribute("data-state", liveState);
    if (stopped) showStopped();
    var again = focused && document.getElementById(focused);
    if (again) again.focus({ preventScroll: true });
    var panel = reveal && document.getElementById(reveal);
    reveal = null;
    if (panel) panel.scrollIntoView({ block: "start" });
    // lab.js plays on and moves the message tokens once a step is in.
    document.dispatchEvent(new CustomEvent("lab:swapped"));
  }

  function load(url, init) {
    busy = true;
    return fetch(url, init).then(function (res) {
      return res.text().then(function (html) { swapIn(html, res.url, res.ok); });
    }).catch(function () {
      // The network failed: let the browser try, and show what it gets;
      // once the lab has stopped, keep the page that says so.
      if (!stopped && (!init || !init.method || init.method === "GET")) location.href = url;
    }).then(function () {
      busy = false;
      if (queued) { var id = queued; queued = null; press(id); }
      else if (stale()) refresh();
    });
  }

  function stale() {
    var m = main();
    return m && m.dataset.version && Number(m.dataset.version) < wanted;
  }

  function refresh() {
    if (!busy) load(location.href, { headers: { "Accept": "text/html" } });
  }

  document.addEventListener("click", function (ev) {
    var a = ev.target instanceof Element && ev.target.closest("a[data-swap]");
    if (!a || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    if (busy) { queued = a.id || null; return; }
    reveal = panels[a.id] || null;
    load(a.href);
  });

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-swap")) return;
    ev.preventDefault();
    var sub = ev.submitter;
    if (busy) { queued = sub && sub.id || null; return; }
    reveal = sub && panels[sub.id] || null;
    load(form.action, { method: "POST", body: new URLSearchParams(new FormData(form, sub)) });
  });

  // ---- Keys. A clicker sends the arrows or Page Up/Down.
  function press(id) {
    var el = document.getElementById(id);
    if (!el || el.disabled || el.getAttribute("aria-disabled") === "true") return false;
    el.click();
    return true;
  }

  // The keys help is a modal dialog: opening it moves the focus into it,
  // Tab and Shift+Tab stay inside, and Esc (or its Close button) closes
  // it and gives the focus back to what had it.
  function help(open) {
    var h = document.getElementById("p-help");
    if (!h) return;
    var was = h.open;
    h.open = open === undefined ? !h.open : open;
    if (h.open && !was) {
      var a = document.activeElement;
      opener = a && a !== document.body && !h.contains(a) ? a : null;
      var close = document.getElementById("p-help-close");
      if (close) close.focus({ preventScroll: true });
    } else if (!h.open && was) {
      var back = opener && opener.isConnected ? opener
        : opener && opener.id ? document.getElementById(opener.id) : null;
      opener = null;
      if (!back) back = document.getElementById("p-help-open") || main();
      if (back) back.focus({ preventScroll: true });
    }
  }

  function focusables(root) {
    return Array.prototype.filter.call(
      root.querySelectorAll('a[href], button:not([disabled]), input, select, textarea, [tabindex]:not([tabindex="-1"])'),
      function (el) { return el.getClientRects().length > 0; });
  }

  function trap(ev) {
    var h = document.getElementById("p-help"), body = document.getElementById("p-help-body");
    if (!h || !h.open || !body) return false;
    var els = focusables(body);
    if (!els.length) { ev.preventDefault(); return true; }
    var first = els[0], last = els[els.length - 1], at = document.activeElement;
    if (!body.contains(at)) { ev.preventDefault(); (ev.shiftKey ? last : first).focus(); return true; }
    if (ev.shiftKey && at === first) { ev.preventDefault(); last.focus(); }
    else if (!ev.shiftKey && at === last) { ev.preventDefault(); first.focus(); }
    return true;
  }

  // handlerKey is the button a handler key toggles: 1–9, 0, then letters.
  function handlerKey(key) {
    if (key.length !== 1) return null;
    var k = key.toUpperCase();
    var el = Array.prototype.find.call(document.querySelectorAll(".p-handlers [data-key]"),
      function (e) { return e.getAttribute("data-key") === k; });
    return el && el.id || null;
  }

  document.addEventListener("keydown", function (ev) {
    var m = main();
    if (!m || !m.hasAttribute("data-role") || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    if (ev.key === "Tab") { trap(ev); return; }
    var t = ev.target;
    if (t instanceof Element && t.closest("input, select, textarea, [contenteditable]")) return;
    var keys = m.hasAttribute("data-keys"), id = null;
    switch (ev.key) {
      case "ArrowRight": case "PageDown": id = keys && "p-next"; break;
      // Space plays and pauses: lab.js takes it (the play controls).
      case "ArrowLeft": case "PageUp": id = keys && "p-prev"; break;
      case "r": case "R": id = keys && "p-restart"; break;
      case "s": case "S": id = "p-source"; break;
      case "t": case "T": id = "p-timeline"; break;
      case "v": case "V": id = keys && "p-verdicts"; break;
      case "?": ev.preventDefault(); help(); return;
      case "Escape": help(false); return;
      default:
        if (keys) id = handlerKey(ev.key);
    }
    if (!id) return;
    ev.preventDefault();
    if (busy) { queued = id; return; }
    press(id);
  });

  document.addEventListener("click", function (ev) {
    if (!(ev.target instanceof Element)) return;
    if (ev.target.closest("#p-help-open")) help(true);
    else if (ev.target.closest("#p-help-close")) help(false);
  });

  // ---- A room, live. The stream sends the room's state on every change;
  // when the view this page shows is no longer current, fetch the page
  // again. A student's page only updates its counters for a vote.
  function follow() {
    var m = main();
    if (!m || !m.dataset.events || !window.EventSource) return;
    var es = new EventSource(m.dataset.events);
    function status(s) {
      liveState = s;
      var live = document.getElementById("p-live");
      if (live) live.setAttribute("data-state", s);
    }
    es.onopen = function () { status("live"); };
    es.onerror = function () {
      status("reconnecting");
      // A refused stream (the room closed or is full) is not retried:
      // reload to show the page that says so.
      if (es.readyState === EventSource.CLOSED) location.reload();
    };
    es.addEventListener("closed", function () { es.close(); location.reload(); });
    // The lab is shutting down: a reload would find nothing, and a retry
    // would only say "reconnecting" forever. Stop listening and say so in
    // the page's language (the text is in the page, hidden until now).
    es.addEventListener("stopped", function () { es.close(); stopped = true; showStopped(); });
    es.onmessage = function (ev) {
      var st;
      try { st = JSON.parse(ev.data); } catch (e) { return; }
      status("live");
      var m = main();
      if (!m || st.version <= Number(m.dataset.version || 0)) return;
      wanted = Math.max(wanted, st.version);
      var poll = st.poll ? st.poll.id + (st.poll.revealed ? "r" : "") : "";
      var same = String(st.step) === m.dataset.step &&
        (st.handlers || []).join(",") === m.dataset.handlers && poll === (m.dataset.poll || "") &&
        (st.hide_verdicts ? "1" : "") === (m.dataset.hideVerdicts || "");
      if (same && m.dataset.role === "student") {
        m.dataset.version = st.version;
        setText(m, "students", st.students);
        if (st.poll) {
          setText(m, "votes", st.poll.votes);
          setText(m, "voters", st.poll.voters || 0);
        }
        setText(m, "joined", st.joined || 0);
        return;
      }
      refresh();
    };
  }

  function showStopped() {
    var note = document.getElementById("room-stopped");
    if (note) note.hidden = false;
    var live = document.getElementById("p-live");
    if (live) live.style.display = "none"; // its CSS display outranks the hidden attribute
  }

  function setText(root, name, value) {
    root.querySelectorAll('[data-live="' + name + '"]').forEach(function (el) { el.textContent = value; });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", follow);
  else follow();
})();
