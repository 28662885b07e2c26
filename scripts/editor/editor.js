// The lab's handler editor: CodeMirror 6 with Go, over a plain textarea
// that stays the form's field (and the whole editor without JavaScript).
// lab.js calls LabEditor.attach(textarea) when the editor opens. Beyond
// CodeMirror's basic setup, the Go Playground's comforts:
//   - colours from the page's own palette: tokens get tok-* classes
//     (static/lab.css colours them with the page's variables) and the
//     editor's surfaces read the same variables, so it follows the light,
//     dark and automatic themes with the rest of the page;
//   - the problems the server found in the file (a list in the form,
//     li[data-line] under #<textarea id>-problems) as lint markers at their
//     lines, the line itself marked too;
//   - Ctrl+Enter (Cmd+Enter on a Mac) presses the form's Run button;
//   - the form's Format button (value=format) asks the server for
//     go/format's text (POST code= to the textarea's data-format) and puts
//     it in as one change that Ctrl+Z takes back; a file that does not
//     parse gets its error as a marker instead.
import { EditorView, basicSetup } from "codemirror";
import { go } from "@codemirror/lang-go";
import { StateField, StateEffect, Prec } from "@codemirror/state";
import { Decoration, keymap } from "@codemirror/view";
import { syntaxHighlighting } from "@codemirror/language";
import { classHighlighter } from "@lezer/highlight";
import { setDiagnostics, lintGutter } from "@codemirror/lint";

// The editor's surfaces in the page's colours (static/lab.css defines the
// variables for each theme).
const pageTheme = EditorView.theme({
  "&": { color: "var(--text)", backgroundColor: "var(--surface)" },
  ".cm-content": { caretColor: "var(--text)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--text)" },
  ".cm-gutters": { backgroundColor: "var(--surface-2)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine": { backgroundColor: "var(--cm-active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--cm-active-line)", color: "var(--text)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "var(--cm-selection)" },
  ".cm-selectionMatch": { backgroundColor: "var(--cm-selection-match)" },
  "&.cm-focused .cm-matchingBracket": { backgroundColor: "var(--cm-selection-match)", outline: "1px solid var(--muted)" },
  "&.cm-focused .cm-nonmatchingBracket": { backgroundColor: "var(--dup-soft)" },
  ".cm-searchMatch": { backgroundColor: "var(--mark-bg)", outline: "1px solid var(--mark-line)" },
  ".cm-tooltip": { backgroundColor: "var(--surface)", color: "var(--text)", border: "1px solid var(--border)" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "var(--accent)", color: "var(--accent-text)" },
  ".cm-panels": { backgroundColor: "var(--surface-2)", color: "var(--text)" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--border)" },
  ".cm-panels.cm-panels-top": { borderBottom: "1px solid var(--border)" },
  ".cm-textfield": { backgroundColor: "var(--surface)", color: "var(--text)", border: "1px solid var(--border)" },
  ".cm-button": { backgroundImage: "none", backgroundColor: "var(--surface)", color: "var(--text)", border: "1px solid var(--border)" },
  ".cm-foldPlaceholder": { backgroundColor: "var(--surface-2)", color: "var(--muted)", border: "1px solid var(--border)" },
  ".cm-diagnostic-error": { borderLeftColor: "var(--dup)" },
});

// The lines the problems name, marked as a whole (the lint underline
// alone is easy to miss on a long line). setProblems replaces them.
const setProblemLines = StateEffect.define();
const problemLines = StateField.define({
  create() { return Decoration.none; },
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) if (e.is(setProblemLines)) deco = e.value;
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

// problemsOf reads the problems listed under the editor: [{line, text}].
function problemsOf(box) {
  if (!box) return [];
  return Array.from(box.querySelectorAll("li[data-line]")).map((li) => ({
    line: parseInt(li.dataset.line || "0", 10) || 0,
    text: li.textContent.trim(),
  }));
}

// setProblems puts problems on the editor as lint diagnostics and line
// marks; a problem without a line (0) stays in the list only.
function setProblems(view, problems) {
  const doc = view.state.doc;
  const diags = [], marks = [];
  for (const p of problems) {
    if (p.line < 1 || p.line > doc.lines) continue;
    const line = doc.line(p.line);
    diags.push({ from: line.from, to: line.to, severity: "error", message: p.text, source: "go" });
    marks.push(Decoration.line({ class: "cm-error-line" }).range(line.from));
  }
  marks.sort((a, b) => a.from - b.from);
  const spec = setDiagnostics(view.state, diags);
  spec.effects = [].concat(spec.effects || [], setProblemLines.of(Decoration.set(marks, true)));
  view.dispatch(spec);
}

// showProblems writes problems into the list under the editor (read by
// screen readers, and the only place for a problem without a line) and
// onto the editor.
function showProblems(view, box, problems) {
  if (box) {
    const list = box.querySelector("ul") || box.appendChild(document.createElement("ul"));
    list.textContent = "";
    for (const p of problems) {
      const li = document.createElement("li");
      li.dataset.line = String(p.line);
      li.textContent = p.text;
      list.appendChild(li);
    }
    box.hidden = problems.length === 0;
  }
  setProblems(view, problems);
}

// runButton is the button Ctrl+Enter presses: the form's Run.
function runButton(form) {
  return form.querySelector("button[name=action][value=run]") ||
    form.querySelector("button[type=submit]:not([value=format]):not([value=remove])");
}

function format(view, textarea, box, button) {
  const url = textarea.dataset.format;
  const status = document.getElementById(textarea.id + "-status");
  button.disabled = true;
  fetch(url, {
    method: "POST",
    headers: { "Accept": "application/json" },
    body: new URLSearchParams({ code: view.state.doc.toString() }),
  }).then((resp) => resp.json().then((body) => ({ ok: resp.ok, body })))
    .then(({ ok, body }) => {
      if (!ok) {
        showProblems(view, box, [{ line: body.line || 0, text: body.message || String(body) }]);
        if (status) status.textContent = "";
        return;
      }
      const now = view.state.doc.toString();
      // A change of its own in the history: Ctrl+Z takes back the
      // formatting alone, never the typing before it.
      if (body.code !== now) view.dispatch({ changes: { from: 0, to: now.length, insert: body.code }, userEvent: "input.format" });
      showProblems(view, box, []);
      if (status) status.textContent = button.dataset.done || "";
    })
    .catch(() => { if (status) status.textContent = button.dataset.failed || ""; })
    .finally(() => { button.disabled = false; });
}

// contentAttributes gives the editable area the textarea's name and
// description, for screen readers.
function contentAttributes(textarea) {
  const label = textarea.labels && textarea.labels[0] ? textarea.labels[0].textContent.trim() : "";
  const attrs = { "aria-label": textarea.getAttribute("aria-label") || label || "Go" };
  // The keys are for the editor only (#<id>-keys says Ctrl+Enter runs).
  const ids = (textarea.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
  if (document.getElementById(textarea.id + "-keys")) ids.push(textarea.id + "-keys");
  if (ids.length) attrs["aria-describedby"] = ids.join(" ");
  return attrs;
}

function attach(textarea) {
  if (textarea.dataset.cm) return null;
  textarea.dataset.cm = "1";
  const form = textarea.form;
  const box = document.getElementById(textarea.id + "-problems");
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      Prec.highest(keymap.of([{
        key: "Mod-Enter",
        run: () => {
          const b = form && runButton(form);
          if (!b) return false;
          form.requestSubmit(b);
          return true;
        },
      }])),
      basicSetup,
      go(),
      syntaxHighlighting(classHighlighter),
      pageTheme,
      lintGutter(),
      problemLines,
      EditorView.contentAttributes.of(contentAttributes(textarea)),
      EditorView.updateListener.of((u) => { if (u.docChanged) textarea.value = u.state.doc.toString(); }),
    ],
  });
  textarea.hidden = true;
  textarea.labEditor = view; // for the browser tests: a paste is view.dispatch
  textarea.parentNode.insertBefore(view.dom, textarea);
  // The error page's editor names one line (data-error-line); the lab's
  // lists its problems.
  const problems = problemsOf(box);
  const one = parseInt(textarea.dataset.errorLine || "0", 10);
  if (!problems.length && one > 0) problems.push({ line: one, text: "" });
  if (problems.length) setProblems(view, problems);
  const first = problems.find((p) => p.line > 0 && p.line <= view.state.doc.lines);
  if (first) {
    view.dispatch({ selection: { anchor: view.state.doc.line(first.line).from }, scrollIntoView: true });
  }
  const fmt = form && textarea.dataset.format ? form.querySelector("button[value=format]") : null;
  if (fmt) {
    fmt.addEventListener("click", (ev) => {
      ev.preventDefault();
      format(view, textarea, box, fmt);
    });
  }
  return view;
}

window.LabEditor = { attach };
