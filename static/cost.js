// The cost page (web/costpage): with this script the bench's progress shows
// while it runs, fed by server-sent events, and its results replace the
// results section when it ends. Without it the form loads the page with
// the results (run=1), which works the same, only without the bar.
(function () {
  "use strict";
  var form = document.getElementById("cost-run");
  if (!form || !window.EventSource || !window.URLSearchParams) return;
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var params = new URLSearchParams(new FormData(form));
    params.delete("run");
    var go = document.getElementById("cost-go");
    var box = document.getElementById("cost-progress");
    var bar = document.getElementById("cost-bar");
    var status = document.getElementById("cost-status");
    var results = document.getElementById("cost-results");
    go.disabled = true;
    box.hidden = false;
    var es = new EventSource("/cost/events?" + params.toString());
    function end() { es.close(); go.disabled = false; box.hidden = true; }
    es.addEventListener("progress", function (e) {
      var p = e.data.split(" "), done = +p[0], total = +p[1];
      bar.max = total; bar.value = done;
      status.textContent = status.getAttribute("data-text").replace("%d", done).replace("%d", total);
    });
    es.addEventListener("done", function (e) {
      // The server renders the section and escapes every text in it.
      results.innerHTML = e.data;
      end();
      var h = document.getElementById("cost-results-title");
      if (h) { h.setAttribute("tabindex", "-1"); h.focus(); }
    });
    es.addEventListener("failed", function (e) { status.textContent = e.data; es.close(); go.disabled = false; });
    es.onerror = function () {
      // A busy server or a refused form answers with a page, not a
      // stream: load it, so its message shows.
      end();
      window.location = "/cost?run=1&" + params.toString();
    };
  });
})();

// The metric picker: without this script its links load the page with
// another ?metric=; with it, a click shows that metric's chart in every
// measurement in place, marks the choice in every picker, keeps the
// address (Back returns to the chart before) and tells the bench form,
// so a run made next opens on the same chart.
(function () {
  "use strict";
  if (!window.URL || !window.history || !history.pushState) return;
  function show(metric) {
    var charts = document.querySelectorAll(".cost-bars[data-metric]");
    for (var i = 0; i < charts.length; i++) charts[i].hidden = charts[i].getAttribute("data-metric") !== metric;
    var picks = document.querySelectorAll(".cost-pick[data-metric]");
    for (var j = 0; j < picks.length; j++) {
      if (picks[j].getAttribute("data-metric") === metric) picks[j].setAttribute("aria-current", "true");
      else picks[j].removeAttribute("aria-current");
    }
    var input = document.getElementById("cost-metric");
    if (input) { input.value = metric; input.disabled = metric === "speed"; }
  }
  function current() {
    return new URL(window.location.href).searchParams.get("metric") || "speed";
  }
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest(".cost-pick[data-metric]");
    if (!a || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    var metric = a.getAttribute("data-metric");
    // The page's own address with the metric changed: a run shown in
    // place (over the event stream) is not in the address, so the
    // link's own run fields are not taken.
    var url = new URL(window.location.href);
    if (metric === "speed") url.searchParams.delete("metric");
    else url.searchParams.set("metric", metric);
    if (url.href !== window.location.href) history.pushState({ metric: metric }, "", url.href);
    show(metric);
  });
  window.addEventListener("popstate", function () { show(current()); });
})();
