// Draws a lesson's mermaid diagrams in the page's theme, and again when the
// reader switches the theme (the header's toggle or the system's). Loaded,
// after the vendored mermaid, only on lessons that have a diagram; without
// JavaScript the reader sees each diagram's source.
(function () {
  "use strict";
  var mermaid = window.mermaid;
  if (!mermaid) return;
  var root = document.documentElement;
  var systemDark = window.matchMedia("(prefers-color-scheme: dark)");

  function theme() {
    var forced = root.getAttribute("data-theme");
    var dark = forced === "dark" || (forced !== "light" && systemDark.matches);
    return dark ? "dark" : "default";
  }
  function configure(name, onLoad) {
    mermaid.initialize({ startOnLoad: onLoad, theme: name, securityLevel: "strict" });
  }

  // Keep each diagram's source: drawing replaces it with the SVG.
  var diagrams = Array.prototype.slice.call(document.querySelectorAll("pre.mermaid"));
  diagrams.forEach(function (el) { el.setAttribute("data-source", el.textContent); });

  // Paper is white: lessons.css, for print, turns a diagram drawn dark into a light one.
  function mark(name) {
    diagrams.forEach(function (el) { el.setAttribute("data-drawn-theme", name); });
  }
  var drawn = theme();
  mark(drawn);
  configure(drawn, true); // mermaid draws them when the page has loaded

  function redraw() {
    var now = theme();
    if (now === drawn) return;
    drawn = now;
    diagrams.forEach(function (el) {
      el.removeAttribute("data-processed");
      el.textContent = el.getAttribute("data-source");
    });
    mark(now);
    configure(now, false);
    mermaid.run({ nodes: diagrams });
  }
  new MutationObserver(redraw).observe(root, { attributes: true, attributeFilter: ["data-theme"] });
  if (systemDark.addEventListener) systemDark.addEventListener("change", redraw);
})();
