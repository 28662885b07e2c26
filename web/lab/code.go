package lab

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/idempotency-lab/lab/sandbox"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// Code is POST /lab/code, the editor's form: run a handler file beside the
// lab's handlers on the script shown (action=run), search its schedules
// (action=check) or take it away (action=remove). The file is only
// checked here (sandbox.Parse); it runs in the sandbox when the lab
// address it leads to is replayed. A file that does not pass comes back
// in an editor with the message, on its line: nothing is lost.
func (s *Lab) Code(w http.ResponseWriter, r *http.Request) error {
	if s.Sandbox == nil {
		return s.CodeOff()
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
	st, err := s.ReadState(v)
	if err != nil {
		return err
	}
	action := f.Get("action")
	switch action {
	case "remove":
		return s.redirectTo(w, r, st, st.Step)
	case "run", "check", "":
	default:
		return page.BadRequest("err.codeaction", action)
	}
	code := strings.ReplaceAll(f.Get("code"), "\r\n", "\n")
	name, err := labview.CodeNameOf(s.Lab, f.Get("name"))
	if err != nil {
		return err
	}
	if _, perr := sandbox.Parse(code); perr != nil {
		return labview.CodeError(perr, code, name, state)
	}
	if action == "check" {
		http.Redirect(w, r, labview.CodeCheckURL(code, name), http.StatusSeeOther)
		return nil
	}
	st.Code, st.CodeName = code, name
	return s.redirectTo(w, r, st, st.Step)
}
