package lessons

import (
	"fmt"
	"html"
	"strings"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/sandbox"
	"github.com/yuin/goldmark/util"
)

// EditorLink is a source fence marked editor=PRESET: a fence that quotes
// a built-in handler's function (a message handler's, on a broker
// preset, or an API handler's, on an API preset), under which the page offers
// "Open in the editor". The link opens the lab on Preset with the
// handler's whole file (Code, sandbox.Builtin: the handler copied into
// the editor's shape) in its editor, and the compiled handler beside it.
// The content test interprets every Code in the sandbox and checks that
// it settles Preset to the compiled handler's verdict.
type EditorLink struct {
	Handler string // the built-in handler the fence quotes: unique
	File    string // the fence's FILE: unique.go
	Decl    string // the fence's DECL: Unique
	Preset  string // the scenario the lab opens on
	Code    string // the handler file the editor holds
	URL     string // the lab's address: /lab?preset=…&code=…&handlers=…
	Line    int    // the fence's line in Lesson.Source
}

// editorKey is the info-string attribute that marks a source fence:
// ```source editor=PRESET.
const editorKey = "editor"

// parseSourceAttrs reads what a source fence's info string says after
// "source": nothing, or editor=PRESET. It returns the preset ("" for
// none).
func parseSourceAttrs(info string, fence int, e *errList) (string, bool) {
	fields := strings.Fields(info)
	if len(fields) <= 1 {
		return "", true
	}
	preset, ok := "", true
	for _, f := range fields[1:] {
		k, v, found := strings.Cut(f, "=")
		switch {
		case !found || k != editorKey:
			e.add(fence, "source fence: unknown attribute %q; a source fence takes editor=PRESET (```source editor=crash-before-ack) or nothing", f)
			ok = false
		case v == "":
			e.add(fence, "source fence: editor= names the scenario the lab opens on (editor=crash-before-ack)")
			ok = false
		case preset != "":
			e.add(fence, "source fence: editor= given twice")
			ok = false
		default:
			preset = v
		}
	}
	return preset, ok
}

// editorLink makes the EditorLink of a source fence (at line fence)
// marked editor=PRESET that quotes file's decl: the handler must be a
// built-in handler with a handler file, a message handler on one of the
// broker's presets or an API handler on an API preset (a message
// handler's file runs no script of HTTP requests, an API handler's no
// broker's story).
func (b *builder) editorLink(ref sourceRef, fence int) (EditorLink, error) {
	if err := b.checkPreset(ref.editor); err != nil {
		return EditorLink{}, fmt.Errorf("editor=: %v", err)
	}
	_, apiPreset := b.apiPresets[ref.editor]
	name, api, err := handlerOf(ref.file, ref.decl)
	if err != nil {
		return EditorLink{}, err
	}
	switch {
	case apiPreset && !api:
		return EditorLink{}, fmt.Errorf("editor=%s is an API preset (a script of HTTP requests); %s is a message handler, whose file handles messages: name a broker preset", ref.editor, name)
	case !apiPreset && api:
		return EditorLink{}, fmt.Errorf("editor=%s is a broker preset; %s is an API handler, whose file serves HTTP requests: name an API preset", ref.editor, name)
	}
	code, err := b.editorFile(name)
	if err != nil {
		return EditorLink{}, err
	}
	sc := b.presets[ref.editor]
	if apiPreset {
		sc = b.apiPresets[ref.editor]
	}
	l := EditorLink{Handler: name, File: ref.file, Decl: ref.decl, Preset: ref.editor, Code: code, Line: fence}
	key := [2]string{l.Preset, name}
	if l.URL = b.editorURLs[key]; l.URL == "" {
		l.URL = link.Lab{Preset: l.Preset, Code: code, Handlers: withDeclared([]string{name}, sc)}.String()
		if b.editorURLs == nil {
			b.editorURLs = map[[2]string]string{}
		}
		b.editorURLs[key] = l.URL
	}
	return l, nil
}

// handlerOf is the name of the built-in handler whose function is decl
// in handlers/file, and whether it is an API handler. (An API handler's
// completer, handlers.APIIdempotencyKeyComplete, is none: a handler file
// has a Handle and no completer.)
func handlerOf(file, decl string) (string, bool, error) {
	var funcs []string
	for _, h := range handlers.List() {
		if h.File == file && h.Func == decl {
			return h.Name, false, nil
		}
		funcs = append(funcs, h.File+" "+h.Func)
	}
	for _, h := range handlers.APIList() {
		if h.File == file && h.Func == decl {
			return h.Name, true, nil
		}
		funcs = append(funcs, h.File+" "+h.Func)
	}
	return "", false, fmt.Errorf("editor=: %s %s is not a handler's function, so there is no handler file to open; editor= goes on a fence that quotes one of: %s",
		file, decl, strings.Join(funcs, ", "))
}

// sourceAction writes the "Open in the editor" line under a quoted
// handler: a plain link (no script needed) to the lab with the handler's
// file in the editor and the lesson's scenario loaded.
func sourceAction(w util.BufWriter, l *EditorLink, lang string) {
	esc := html.EscapeString
	_, _ = w.WriteString(fmt.Sprintf(`<p class="source-action"><a class="try-it open-editor" href="%s" data-handler="%s" data-preset="%s">%s</a> <span class="source-action-note">%s</span></p>`+"\n",
		esc(l.URL), esc(l.Handler), esc(l.Preset),
		say(lang, "lessons.editor.open"),
		say(lang, "lessons.editor.note", `<code>`+esc(l.Preset)+`</code>`)))
}

// builtinEditor is the handler files the editor opens: the built-in
// message and API handlers copied into the editor's shape
// (sandbox.Builtin).
func builtinEditor(name string) (string, error) { return sandbox.Builtin(name) }
