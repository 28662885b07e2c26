// The console on a ledger's page (/try-api/NAME): sends the form's
// payment to the real endpoint with fetch and shows the answer; writes the
// same request as curl, Go and Python as the fields change (exactly as
// web/tryapi/console.go writes them for the first values); copies any
// command of the page. Without this script the page still shows the
// commands, to copy by hand.
(function () {
  "use strict";

  // jsonString is s as a JSON string, as Go's encoder without HTML
  // escaping writes it (which also escapes U+2028 and U+2029): a valid Go
  // and Python string literal too.
  function jsonString(s) {
    return JSON.stringify(s).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  }
  function shellQuote(s) { return "'" + s.split("'").join("'\\''") + "'"; }
  var number = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
  function body(account, amount) {
    return '{"account": ' + jsonString(account) + ', "amount": ' + (number.test(amount) ? amount : jsonString(amount)) + "}";
  }
  function headers(c) {
    var hs = [["Content-Type", "application/json"]];
    if (c.key !== "") hs.push(["Idempotency-Key", c.key]);
    if (c.delay !== "") hs.push(["Lab-Gateway-Delay", c.delay]);
    return hs;
  }

  function snippets(c) {
    var b = body(c.account, c.amount), hs = headers(c), i;
    var curl = "curl -i -X POST " + shellQuote(c.endpoint) + " \\\n";
    for (i = 0; i < hs.length; i++) curl += "  -H " + shellQuote(hs[i][0] + ": " + hs[i][1]) + " \\\n";
    curl += "  -d " + shellQuote(b);

    var go = "package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n\t\"strings\"\n)\n\nfunc main() {\n" +
      "\tbody := strings.NewReader(" + jsonString(b) + ")\n" +
      "\treq, err := http.NewRequest(\"POST\", " + jsonString(c.endpoint) + ", body)\n" +
      "\tif err != nil {\n\t\tpanic(err)\n\t}\n";
    for (i = 0; i < hs.length; i++) go += "\treq.Header.Set(" + jsonString(hs[i][0]) + ", " + jsonString(hs[i][1]) + ")\n";
    go += "\tresp, err := http.DefaultClient.Do(req)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tdefer resp.Body.Close()\n" +
      "\tb, _ := io.ReadAll(resp.Body)\n" +
      "\tfmt.Println(resp.Status, \"Idempotent-Replayed:\", resp.Header.Get(\"Idempotent-Replayed\"))\n" +
      "\tfmt.Println(string(b))\n}";

    var py = "import requests\n\nresp = requests.post(\n    " + jsonString(c.endpoint) + ",\n    headers={\n";
    for (i = 0; i < hs.length; i++) py += "        " + jsonString(hs[i][0]) + ": " + jsonString(hs[i][1]) + ",\n";
    py += "    },\n    data=" + jsonString(b) + ".encode(),\n)\n" +
      "print(resp.status_code, \"Idempotent-Replayed:\", resp.headers.get(\"Idempotent-Replayed\"))\nprint(resp.text)";
    return { curl: curl, go: go, python: py };
  }

  function fields(form) {
    var v = function (name) { return form.elements[name].value; };
    return { endpoint: form.getAttribute("data-endpoint"), key: v("key"), account: v("account"), amount: v("amount"), delay: v("delay") };
  }

  function setCode(id, text) {
    var pre = document.getElementById(id);
    var code = pre && pre.querySelector("code");
    if (code && code.textContent !== text) code.textContent = text;
  }

  function update(form) {
    var s = snippets(fields(form));
    setCode("try-s-curl", s.curl);
    setCode("try-s-go", s.go);
    setCode("try-s-python", s.python);
  }

  // The headers that say what happened, in this order.
  var shown = ["Content-Type", "Idempotent-Replayed", "Retry-After"];

  function send(form) {
    var c = fields(form), box = document.getElementById("try-c-response");
    var status = document.getElementById("try-c-status"), time = document.getElementById("try-c-time");
    var dl = document.getElementById("try-c-headers"), out = document.querySelector("#try-c-body code");
    var button = document.getElementById("try-c-send");
    var init = { method: "POST", headers: {}, body: body(c.account, c.amount), credentials: "same-origin", cache: "no-store" };
    var hs = headers(c);
    for (var i = 0; i < hs.length; i++) init.headers[hs[i][0]] = hs[i][1];
    box.hidden = false;
    box.setAttribute("aria-busy", "true");
    status.textContent = form.getAttribute("data-sending");
    time.textContent = "";
    dl.textContent = "";
    out.textContent = "";
    button.disabled = true;
    var started = Date.now();
    var done = function () {
      button.disabled = false;
      box.removeAttribute("aria-busy");
      refreshState();
    };
    var req;
    try {
      req = fetch(c.endpoint, init);
    } catch (e) {
      // A header value the browser refuses to send (a character outside
      // Latin-1): say so, as the server would not see the request.
      status.textContent = form.getAttribute("data-failed").replace("%s", String(e.message || e));
      done();
      return;
    }
    req.then(function (resp) {
      return resp.text().then(function (text) {
        status.textContent = resp.status + " " + (resp.statusText || "");
        status.setAttribute("data-status", String(resp.status));
        time.textContent = (Date.now() - started) + " ms";
        for (var j = 0; j < shown.length; j++) {
          var v = resp.headers.get(shown[j]);
          if (v === null) continue;
          var dt = document.createElement("dt"), dd = document.createElement("dd");
          dt.textContent = shown[j];
          dd.textContent = v;
          dd.setAttribute("data-header", shown[j]);
          dl.appendChild(dt);
          dl.appendChild(dd);
        }
        out.textContent = text;
        done();
      });
    }).catch(function (e) {
      status.textContent = form.getAttribute("data-failed").replace("%s", String(e.message || e));
      status.removeAttribute("data-status");
      done();
    });
  }

  // refreshState fetches the polled tables now, so the request's log line
  // shows at once instead of at the next poll.
  function refreshState() {
    var el = document.getElementById("try-state");
    if (!el || !window.htmx) return;
    htmx.ajax("GET", el.getAttribute("hx-get"), { target: el, swap: el.getAttribute("hx-swap") || "innerHTML" });
  }

  document.addEventListener("input", function (ev) {
    var form = ev.target && ev.target.form;
    if (form && form.id === "try-console-form") update(form);
  });
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form || form.id !== "try-console-form") return;
    ev.preventDefault();
    send(form);
  });

  // Copy: the <pre> just before the button.
  document.addEventListener("click", function (ev) {
    var btn = ev.target && ev.target.closest && ev.target.closest("[data-try-copy]");
    if (!btn) return;
    var pre = btn.previousElementSibling;
    if (!pre) return;
    var text = pre.textContent;
    var live = document.getElementById("try-copy-status");
    var copied = function () {
      var label = btn.getAttribute("data-label") || btn.textContent;
      btn.setAttribute("data-label", label);
      btn.textContent = btn.getAttribute("data-done");
      btn.classList.add("copied");
      if (live) live.textContent = btn.getAttribute("data-done");
      clearTimeout(btn._tryTimer);
      btn._tryTimer = setTimeout(function () {
        btn.textContent = label;
        btn.classList.remove("copied");
        if (live) live.textContent = "";
      }, 2000);
    };
    var failed = function () {
      var range = document.createRange();
      range.selectNodeContents(pre);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      if (live) live.textContent = btn.getAttribute("data-failed");
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(copied, failed);
    } else {
      failed();
    }
  });
})();
