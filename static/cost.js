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
