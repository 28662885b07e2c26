// The lab's own script: small comforts on top of pages that work without
// it. htmx does the requests; this file only picks the theme, moves the
// step slider, copies the permalink and maps the arrow keys to the step
// links. It runs in <head>, so it only touches <html> and listens on
// document.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.remove("no-js");
  root.classList.add("js");

  // Theme: auto (the system's), light or dark, remembered in this browser.
  var themes = ["auto", "light", "dark"];
  function storedTheme() {
    try { return localStorage.getItem("lab-theme") || "auto"; } catch (e) { return "auto"; }
  }
  function applyTheme(name) {
    if (name === "light" || name === "dark") root.setAttribute("data-theme", name);
    else root.removeAttribute("data-theme");
    var btn = document.getElementById("theme-toggle");
    if (btn) {
      btn.textContent = btn.getAttribute("data-" + name) || name;
      btn.setAttribute("data-theme-now", name);
    }
  }
  applyTheme(storedTheme());
  document.addEventListener("DOMContentLoaded", function () { applyTheme(storedTheme()); });

  document.addEventListener("click", function (ev) {
    var el = ev.target instanceof Element ? ev.target : null;
    if (!el) return;
    var toggle = el.closest("#theme-toggle");
    if (toggle) {
      var next = themes[(themes.indexOf(storedTheme()) + 1) % themes.length];
      try { localStorage.setItem("lab-theme", next); } catch (e) { /* private mode: still switch */ }
      applyTheme(next);
      return;
    }
    // A link into a folded panel (a card's "Timeline ↓") unfolds it.
    var link = el.closest("a[href^='#']");
    if (link) {
      var target = document.getElementById(link.getAttribute("href").slice(1));
      var panel = target && target.closest("details");
      if (panel) panel.open = true;
    }
    var copy = el.closest("[data-copy]");
    if (copy) {
      var input = document.querySelector(copy.getAttribute("data-copy"));
      if (!input) return;
      var done = function () {
        var label = copy.textContent;
        copy.textContent = copy.getAttribute("data-done") || label;
        setTimeout(function () { copy.textContent = label; }, 1500);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, function () { input.select(); });
      } else {
        input.select();
        try { if (document.execCommand("copy")) done(); } catch (e) { /* the text stays selected */ }
      }
    }
  });

  // The step slider shows the step under the thumb as soon as it rests.
  var sliderTimer = null;
  document.addEventListener("input", function (ev) {
    var el = ev.target;
    if (!(el instanceof HTMLInputElement) || el.id !== "step-slider") return;
    var out = document.querySelector("output[for='step-slider']");
    if (out) out.textContent = el.value + " / " + el.max;
    clearTimeout(sliderTimer);
    sliderTimer = setTimeout(function () {
      if (el.form) el.form.requestSubmit();
    }, 120);
  });

  // ---- Play: the steps one after another, and on each card the step's
  // message moving between the parts it visits (Raft Scope's way). Play
  // presses the next-step control itself, so the address, the history and,
  // in a room, the broadcast are a manual step's; it waits for the page to
  // be swapped in, then for the interval of the speed. The path of each
  // card is the server's (data-path on .msg-lane); this only moves a token
  // along it. The same code runs in the presenter, where present.js
  // announces its swaps with "lab:swapped".
  var speeds = ["0.5", "1", "2", "4"];
  var play = { on: false, timer: 0, watchdog: 0, waiting: false, from: -1 };
  var selfClick = false; // the click is play's own, not the reader's
  var shownStep = null; // the step on screen, to tell a step forward from a jump
  // The controls that move the run: pressing one stops play.
  var stepControls = "#step-first, #step-prev, #step-next, #step-last, #step-list-form button, #controls button, " +
    ".script-form button, #p-prev, #p-next, #p-restart, #reveal-poll, .lane-act";

  function playBox() { return document.getElementById("play-controls"); }
  function stepNow() {
    var c = document.getElementById("step-count");
    if (!c || !c.hasAttribute("data-step")) return null;
    return { step: Number(c.getAttribute("data-step")), total: Number(c.getAttribute("data-total")) };
  }
  function storedSpeed() {
    try { var s = localStorage.getItem("lab-play-speed"); return speeds.indexOf(s) >= 0 ? s : "1"; } catch (e) { return "1"; }
  }
  function speed() {
    var sel = document.getElementById("play-speed");
    var v = parseFloat(sel ? sel.value : storedSpeed());
    return v > 0 ? v : 1;
  }
  function stillMotion() {
    return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }

  // showPlay reveals the controls (hidden for a page without JavaScript)
  // and makes them say the state play is in: the lab keeps their node
  // across swaps (hx-preserve), the presenter swaps in a new one.
  function showPlay() {
    var box = playBox();
    if (!box) return;
    box.hidden = false;
    var sel = document.getElementById("play-speed");
    if (sel && !sel.hasAttribute("data-ready")) {
      sel.value = storedSpeed();
      sel.setAttribute("data-ready", "");
    }
    var btn = document.getElementById("play-toggle");
    if (!btn) return;
    var state = play.on ? "pause" : "play";
    btn.setAttribute("aria-pressed", play.on ? "true" : "false");
    btn.title = btn.getAttribute("data-tip-" + state) || "";
    var label = btn.querySelector(".play-label"), sym = btn.querySelector(".sym");
    if (label) label.textContent = btn.getAttribute("data-" + state) || state;
    if (sym) sym.textContent = play.on ? "❚❚" : "▶";
  }

  function stopPlay() {
    play.on = play.waiting = false;
    clearTimeout(play.timer);
    clearTimeout(play.watchdog);
    play.timer = play.watchdog = 0;
    showPlay();
  }

  function startPlay() {
    if (play.on || !playBox()) return;
    play.on = true;
    showPlay();
    playTick();
  }

  // playTick takes one step: the next, or, from the last, back to the
  // first so that Play plays the run again.
  function playTick() {
    play.timer = 0;
    if (!play.on) return;
    var at = stepNow(), box = playBox();
    if (!at || !box) { stopPlay(); return; }
    var el = document.getElementById(box.getAttribute(at.step >= at.total ? "data-first" : "data-next") || "");
    if (!el || el.disabled || el.getAttribute("aria-disabled") === "true") { stopPlay(); return; }
    play.from = at.step;
    play.waiting = true;
    clearTimeout(play.watchdog);
    // A step that never arrives (the server gone) stops play.
    play.watchdog = setTimeout(function () { if (play.waiting) stopPlay(); }, 15000);
    selfClick = true;
    try { el.click(); } finally { selfClick = false; }
  }

  // stepped runs once a swap has settled: the token moves for a step
  // forward, and play goes on after the interval, or stops at the end.
  function stepped() {
    showPlay();
    var at = stepNow(), before = shownStep;
    shownStep = at ? at.step : null;
    if (at && before !== null && at.step === before + 1) moveTokens();
    if (!play.on || !play.waiting) return;
    play.waiting = false;
    clearTimeout(play.watchdog);
    if (!at || at.step === play.from || at.step >= at.total) { stopPlay(); return; }
    clearTimeout(play.timer);
    play.timer = setTimeout(playTick, 2000 / speed());
  }

  // moveTokens sends each card's token along its lane: ≤ 1.2 s at 1×,
  // never in the way (pointer-events: none), and without movement for a
  // reader who asked for less motion: the token then only shows where the
  // message ends up.
  function moveTokens() {
    Array.prototype.forEach.call(document.querySelectorAll(".msg-lane[data-path]"), function (lane) {
      var path = (lane.getAttribute("data-path") || "").split(",").filter(Boolean);
      var parts = path.map(function (p) { return lane.querySelector('[data-part="' + p + '"]'); });
      if (!path.length || parts.some(function (e) { return !e || !e.getClientRects().length; })) return;
      var old = lane.querySelector(".msg-token");
      if (old) old.remove();
      var tok = document.createElement("span");
      tok.className = "msg-token";
      tok.setAttribute("aria-hidden", "true");
      tok.textContent = lane.getAttribute("data-token") || "✉";
      lane.appendChild(tok);
      var box = lane.getBoundingClientRect(), w = tok.offsetWidth, h = tok.offsetHeight;
      // Under the part's name, in the slot lab.css keeps there: the token
      // never covers a name (#28).
      var at = parts.map(function (e) {
        var r = e.getBoundingClientRect(), name = e.querySelector(".lane-label");
        var below = name ? name.getBoundingClientRect().bottom + 3 : r.top + (r.height - h) / 2;
        return "translate(" + Math.round(r.left - box.left + (r.width - w) / 2) + "px, " +
          Math.ceil(below - box.top) + "px)";
      });
      var crash = lane.hasAttribute("data-crash"), k = speed();
      var ms = Math.min(1200, 300 * Math.max(path.length - 1, 1)) / k;
      var done = function () {
        if (crash) tok.classList.add("crashed");
        setTimeout(function () { tok.remove(); }, (crash ? 700 : 250) / k);
      };
      tok.style.transform = at[at.length - 1];
      if (stillMotion() || typeof tok.animate !== "function") {
        setTimeout(done, ms);
        return;
      }
      var frames = path.length > 1
        ? at.map(function (t, i) { return { transform: t, offset: i / (at.length - 1) }; })
        : [{ transform: at[0] + " scale(0.4)" }, { transform: at[0] + " scale(1.15)" }, { transform: at[0] }];
      tok.animate(frames, { duration: ms, easing: "ease-in-out" }).onfinish = done;
    });
  }

  document.addEventListener("htmx:after:settle", stepped);
  document.addEventListener("lab:swapped", stepped);
  document.addEventListener("DOMContentLoaded", function () {
    var at = stepNow();
    shownStep = at ? at.step : null;
    showPlay();
  });
  document.addEventListener("visibilitychange", function () { if (document.hidden && play.on) stopPlay(); });
  window.addEventListener("popstate", function () { if (play.on) stopPlay(); });
  document.addEventListener("change", function (ev) {
    var el = ev.target;
    if (!(el instanceof HTMLSelectElement) || el.id !== "play-speed") return;
    try { localStorage.setItem("lab-play-speed", el.value); } catch (e) { /* private mode: this page only */ }
  });
  // The reader's own step (a click, an arrow key, the slider) stops play.
  document.addEventListener("click", function (ev) {
    var el = ev.target instanceof Element ? ev.target : null;
    if (!el) return;
    if (el.closest("#play-toggle")) {
      if (play.on) stopPlay(); else startPlay();
      return;
    }
    if (play.on && !selfClick && el.closest(stepControls)) stopPlay();
  }, true);
  document.addEventListener("input", function (ev) {
    if (play.on && ev.target instanceof Element && ev.target.id === "step-slider") stopPlay();
  }, true);
  // Space plays and pauses, but not where it has a meaning of its own: in
  // a field, on a button, a link or a disclosure, or with the keys help open.
  document.addEventListener("keydown", function (ev) {
    if (ev.key !== " " || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.defaultPrevented) return;
    var box = playBox(), t = ev.target;
    if (!box || box.hidden) return;
    if (t instanceof Element && t.closest("input, select, textarea, [contenteditable], button, a[href], summary, [role=button], #p-help[open]")) return;
    ev.preventDefault();
    if (play.on) stopPlay(); else startPlay();
  });

  // A click on a card's worker, broker or gateway (a link to the address
  // with the fault's step, for a page without JavaScript) presses the
  // step control that adds the same step, as the reader would: the same
  // request, the same answer. The narration (a live region) then says
  // what happened. Without that control on the page the link is followed.
  document.addEventListener("click", function (ev) {
    var el = ev.target instanceof Element ? ev.target : null;
    var act = el && el.closest("a.lane-act[data-button]");
    if (!act || ev.defaultPrevented || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
    var btn = document.getElementById(act.getAttribute("data-button"));
    if (!btn || btn.disabled || !btn.form || typeof btn.form.requestSubmit !== "function") return;
    // Before htmx sees the link (the capture phase): the form goes instead.
    ev.preventDefault();
    ev.stopPropagation();
    btn.form.requestSubmit(btn);
  }, true);

  // ← and → step through the run, as a presenter's remote would.
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.defaultPrevented) return;
    if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
    var t = ev.target;
    if (t instanceof Element && t.closest("input, select, textarea, [contenteditable], summary, details[open] pre")) return;
    var link = document.getElementById(ev.key === "ArrowLeft" ? "step-prev" : "step-next");
    if (link && link.tagName === "A") {
      ev.preventDefault();
      link.click();
    }
  });

  // A step keeps the reader's place: the swap does not scroll (show:none on
  // #lab), and the control that was pressed keeps the focus. The morph
  // keeps it where the control survives; where it was replaced, the
  // control with the same id gets it back, without scrolling.
  var focusedId = "";
  document.addEventListener("htmx:before:request", function () {
    var a = document.activeElement;
    focusedId = a && a !== document.body && a.id ? a.id : "";
  });

  // An error from an htmx request lands in #flash: bring it into view.
  document.addEventListener("htmx:after:swap", function () {
    var flash = document.getElementById("flash");
    if (flash && flash.firstElementChild) {
      flash.scrollIntoView({ block: "nearest" });
      return;
    }
    var a = document.activeElement;
    if (focusedId && (!a || a === document.body)) {
      var el = document.getElementById(focusedId);
      // A part of a card's picture that is no longer clickable (the
      // worker, with nothing left to deliver): its card's first one that
      // is (the broker, to redeliver) takes the focus instead.
      if (!el && focusedId.indexOf("lane-") === 0) {
        var card = document.getElementById("card-" + focusedId.replace(/^lane-[a-z]+-/, ""));
        el = card && card.querySelector("a.lane-act");
      }
      if (el && typeof el.focus === "function") {
        try { el.focus({ preventScroll: true }); } catch (e) { /* not focusable */ }
      }
    }
    focusedId = "";
  });

  // The handler editor: CodeMirror, loaded the first time an editor is
  // open (it is folded until then), over the textarea, which stays the
  // form's field. Its address comes from the textarea (data-editor-src).
  function withEditor(src, then) {
    if (window.LabEditor) { then(); return; }
    var s = document.querySelector("script[data-lab-editor]");
    if (!s) {
      s = document.createElement("script");
      s.src = src;
      s.setAttribute("data-lab-editor", "");
      document.head.appendChild(s);
    }
    s.addEventListener("load", then);
  }
  function wireEditors() {
    document.querySelectorAll("textarea.code-input[data-editor-src]").forEach(function (ta) {
      if (ta.getAttribute("data-wired")) return;
      ta.setAttribute("data-wired", "1");
      var box = ta.closest("details");
      var go = function () { withEditor(ta.getAttribute("data-editor-src"), function () { window.LabEditor.attach(ta); }); };
      if (!box || box.open) { go(); return; }
      box.addEventListener("toggle", function once() {
        if (!box.open) return;
        box.removeEventListener("toggle", once);
        go();
      });
    });
  }
  document.addEventListener("DOMContentLoaded", wireEditors);
  document.addEventListener("htmx:after:settle", wireEditors);
})();
