package page

import (
	"net/http"

	"github.com/idempotency-lab/lab/practice"
)

// ProfileCookie holds the anonymous profile id: whoever has it has the
// progress, so it is HttpOnly and never leaves this site.
const ProfileCookie = "lab_profile"

// ProfileOf is the profile in the reader's cookie, or "" for none. A cookie
// that is not a profile id (edited, or from an older lab) counts as none:
// the next answer mints a new profile.
func ProfileOf(r *http.Request) string {
	c, err := r.Cookie(ProfileCookie)
	if err != nil || !practice.ValidProfileID(c.Value) {
		return ""
	}
	return c.Value
}

// EnsureProfile returns the reader's profile, minting one on the first
// answer, and keeps the cookie for another year.
func EnsureProfile(w http.ResponseWriter, r *http.Request) string {
	id := ProfileOf(r)
	if id == "" {
		id = practice.NewProfileID()
	}
	http.SetCookie(w, &http.Cookie{Name: ProfileCookie, Value: id, Path: "/", MaxAge: 365 * 24 * 3600,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	return id
}

// NotSaved is the answer to a write the progress database refused (a
// read-only or full disk, a failing file): the reader did nothing wrong,
// so the page says that their progress could not be saved, with 503
// because trying again later may work. The cause is the lab's fault and
// goes to the log at ERROR; the request line itself is a WARN, as every
// 503 is.
func (s *Shell) NotSaved(r *http.Request, err error) error {
	s.Log.Error("progress not saved", "method", r.Method, "path", r.URL.Path, "err", err)
	return &Error{Status: http.StatusServiceUnavailable, Key: "pr.err.save"}
}
