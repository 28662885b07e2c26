// practice.js: the live countdown of an "interview in 15 minutes". The
// page already says when the run ends (#deadline), without a script; this
// adds the minutes and seconds left, once a second.
(function () {
  "use strict";
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function start() {
    var timer = document.getElementById("timer");
    var out = document.getElementById("countdown");
    if (!timer || !out || timer.dataset.running) return;
    var ends = Number(timer.getAttribute("data-ends"));
    if (!ends) return;
    timer.dataset.running = "1";
    var left = timer.getAttribute("data-left") || "%s left";
    var over = timer.getAttribute("data-over") || "Time is up";
    function tick() {
      var ms = ends - Date.now();
      if (ms <= 0) {
        out.textContent = over;
        timer.classList.add("over");
        return;
      }
      var s = Math.ceil(ms / 1000);
      out.textContent = left.replace("%s", Math.floor(s / 60) + ":" + pad(s % 60));
      setTimeout(tick, ms % 1000 || 1000);
    }
    tick();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
  // htmx swaps a new page's main in place: start again on it.
  document.addEventListener("htmx:afterSettle", start);
})();
