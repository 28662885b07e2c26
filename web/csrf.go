package web

import (
	"net/http"

	"github.com/idempotency-lab/lab/web/page"
)

// crossOrigin refuses state-changing requests that another site's page
// makes the reader's browser send (cross-site request forgery): a form on
// evil.example that posts to /rooms/ABC234/vote, say. It is the standard
// library's http.CrossOriginProtection, applied to every route: GET, HEAD
// and OPTIONS always pass, and the lab changes nothing on them; any other
// method passes when the browser says it comes from this site
// (Sec-Fetch-Site: same-origin or none) or, from older browsers, when its
// Origin names this host. Requests with neither header (curl, scripts,
// tests) are not a browser acting for someone else, so they pass too.
//
// A refused request gets the lab's own 403 page in the reader's language.
// It is logged as a warning, not an error: it is the reader's browser
// doing as the other site asked, not the lab failing.
func (s *server) crossOrigin() func(http.Handler) http.Handler {
	c := http.NewCrossOriginProtection()
	c.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Log.Warn("cross-origin request refused", "method", r.Method, "path", page.InputExcerpt(r.URL.Path),
			"origin", page.InputExcerpt(r.Header.Get("Origin")), "sec_fetch_site", page.InputExcerpt(r.Header.Get("Sec-Fetch-Site")))
		s.RenderError(w, r, &page.Error{Status: http.StatusForbidden, Key: "err.crossorigin"})
	}))
	return c.Handler
}
