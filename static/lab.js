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
      if (el && typeof el.focus === "function") {
        try { el.focus({ preventScroll: true }); } catch (e) { /* not focusable */ }
      }
    }
    focusedId = "";
  });
})();
