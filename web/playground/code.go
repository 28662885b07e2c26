package playground

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// Code is POST /lab/code, the editor's form: run a handler file beside the
// lab's handlers on the script shown (action=run), search its schedules
// (action=check), format it (action=format, the Format button without
// JavaScript) or take it away (action=remove). The file is only checked
// here (sandbox.Parse); it runs in the sandbox when the lab address it
// leads to is replayed. A file that does not pass goes to that address
// all the same (so the address holds it, and Back returns to it), where
// the lab shows it in its editor with what is wrong, on its line
// (ShowCodeProblems): nothing is lost. Only a file over the size limit,
// too long for an address, is shown here at once.
func (s *Playground) Code(w http.ResponseWriter, r *http.Request) error {
	if s.Replayer.Sandbox == nil {
		return s.Replayer.CodeOff()
	}
	f, err := page.ReadForm(w, r)
	if err != nil {
		return err
	}
	state := strings.TrimPrefix(f.Get("state"), "?")
	v, err := url.ParseQuery(state)
	if err != nil {
		return page.BadRequest("err.field", "state")
	}
	v.Del("code")
	v.Del("name")
	st, err := s.Replayer.ReadState(v)
	if err != nil {
		return err
	}
	action := f.Get("action")
	switch action {
	case "remove":
		return s.redirectTo(w, r, st, st.Step)
	case "run", "check", "format", "":
	default:
		return page.BadRequest("err.codeaction", action)
	}
	code := strings.ReplaceAll(f.Get("code"), "\r\n", "\n")
	name, err := labview.CodeNameOf(s.Replayer, f.Get("name"))
	if err != nil {
		return err
	}
	if action == "format" {
		out, fe := labview.FormatCode(code)
		if fe != nil {
			fe.Code, fe.CodeName, fe.CodeState = code, name, state
			return s.showEditor(w, r, st, fe)
		}
		return s.showEditor(w, r, st, &page.Error{Status: http.StatusOK, Code: out, CodeName: name, CodeState: state})
	}
	if _, perr := sandbox.Parse(code); perr != nil {
		if len(code) > sandbox.MaxSourceBytes {
			return s.ShowCodeProblems(w, r, labview.CodeError(perr, code, name, state))
		}
		st.Code, st.CodeName = code, name
		http.Redirect(w, r, labview.URL(s.Replayer.Link(st), st.Step, st.DefaultStep())+"#editor", http.StatusSeeOther)
		return nil
	}
	if action == "check" {
		http.Redirect(w, r, labview.CodeCheckURL(code, name), http.StatusSeeOther)
		return nil
	}
	st.Code, st.CodeName = code, name
	return s.redirectTo(w, r, st, st.Step)
}

// ShowCodeProblems keeps the lab when a handler file does not pass (it
// does not parse, compile or finish its run in the sandbox: a
// labview.CodeError): the page of the same state without the file, its
// editor open on the file with what is wrong listed above it and marked
// at its line, under the error's status (422). Any other error, and
// any error of an htmx request (shown in the page's message area), is
// returned as it is.
func (s *Playground) ShowCodeProblems(w http.ResponseWriter, r *http.Request, err error) error {
	var pe *page.Error
	if !errors.As(err, &pe) || pe.Code == "" || page.IsPartial(r) {
		return err
	}
	v, qerr := url.ParseQuery(strings.TrimPrefix(pe.CodeState, "?"))
	if qerr != nil {
		return err
	}
	v.Del("code")
	v.Del("name")
	st, serr := s.Replayer.ReadState(v)
	if serr != nil {
		return err
	}
	return s.showEditor(w, r, st, pe)
}

// showEditor is the lab at state st (which runs no file) with its editor
// open on e.Code under the name e.CodeName, and, when e is a failure
// (e.Key set), its message as the file's problem at e.CodeLine; the
// page's status is e.Status.
func (s *Playground) showEditor(w http.ResponseWriter, r *http.Request, st labview.State, e *page.Error) error {
	return s.Replayer.ReplayAndShow(r.Context(), st, func(run *sim.Run) error {
		t := s.Shell.Text(r)
		v := s.Replayer.NewView(t, r, st, run)
		v.SetProgress(s.savedSolve(r, st))
		v.CodeText, v.CodeName, v.EditorOpen = e.Code, e.CodeName, true
		if e.Key != "" {
			v.CodeProblems = []labview.CodeProblem{{Line: e.CodeLine, Text: t.F(e.Key, page.BoundArgs(e.Args)...)}}
		}
		w.Header().Set("Cache-Control", "no-store")
		return s.Shell.Render(w, r, e.Status, labview.Page(s.Shell.PageFor(t, r, v.PageTitle), v))
	})
}
