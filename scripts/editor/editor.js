// The lab's handler editor: CodeMirror 6 with Go, over a plain textarea
// that stays the form's field (and the whole editor without JavaScript).
// lab.js calls LabEditor.attach(textarea) when the editor opens.
import { EditorView, basicSetup } from "codemirror";
import { go } from "@codemirror/lang-go";
import { StateField } from "@codemirror/state";
import { Decoration } from "@codemirror/view";

// errorLine marks the line a compile error names.
function errorLine(n) {
  return StateField.define({
    create(state) {
      if (!n || n > state.doc.lines) return Decoration.none;
      const line = state.doc.line(n);
      return Decoration.set([Decoration.line({ class: "cm-error-line" }).range(line.from)]);
    },
    update(deco, tr) { return deco.map(tr.changes); },
    provide: (f) => EditorView.decorations.from(f),
  });
}

function attach(textarea) {
  if (textarea.dataset.cm) return null;
  textarea.dataset.cm = "1";
  const line = parseInt(textarea.dataset.errorLine || "0", 10);
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup,
      go(),
      errorLine(line),
      EditorView.contentAttributes.of({ "aria-label": textarea.getAttribute("aria-label") || "Go" }),
      EditorView.updateListener.of((u) => { if (u.docChanged) textarea.value = u.state.doc.toString(); }),
    ],
  });
  textarea.hidden = true;
  textarea.labEditor = view; // for the browser tests: a paste is view.dispatch
  textarea.parentNode.insertBefore(view.dom, textarea);
  if (line > 0 && line <= view.state.doc.lines) {
    view.dispatch({ selection: { anchor: view.state.doc.line(line).from }, scrollIntoView: true });
  }
  return view;
}

window.LabEditor = { attach };
