package web

import (
	"net/http"
	"strings"

	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/tryapi"
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
func (s *server) crossOrigin() *http.CrossOriginProtection {
	c := http.NewCrossOriginProtection()
	c.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.shell.Log.Warn("cross-origin request refused", "method", r.Method, "path", page.InputExcerpt(r.URL.Path),
			"origin", page.InputExcerpt(r.Header.Get("Origin")), "sec_fetch_site", page.InputExcerpt(r.Header.Get("Sec-Fetch-Site")))
		if strings.HasPrefix(r.URL.Path, "/api/") {
			s.tryAPI.Record(r, http.StatusForbidden) // in the ledger's request log, as every answer is
			tryapi.CrossOrigin(w, r)                 // the API answers problem+json, its 403 too
			return
		}
		s.shell.RenderError(w, r, &page.Error{Status: http.StatusForbidden, Key: "err.crossorigin"})
	}))
	return c
}

// runParams are the query parameters that carry a visitor's handler file
// on the GET routes that run one: code= on the lab, the presenter view
// and the checker; c= (or code=) on a practice result, which grades the
// file again.
var runParams = []string{"code", "c"}

// sameSiteRun guards a GET that would run a visitor's handler file in a
// sandbox child: the lab (/lab, /present with code=), the checker
// (/check/code) and a practice result (c=). Such an address, opened by
// another site's page (an <img> or a link on evil.example), would make
// every reader's browser run its payload from the reader's own address.
// So a request that carries a file and comes from another site gets the
// lab's 403 page and runs nothing; following a link inside the lab
// (Sec-Fetch-Site: same-origin), typing or bookmarking the address
// (Sec-Fetch-Site: none), and clients without browser headers (curl)
// still run it.
//
// "Another site" is exactly what crossOrigin refuses for a POST: the
// check is c's own, asked about the same request as if it were a POST,
// so the two can never disagree about what counts as this site.
//
// An old browser that sends neither Sec-Fetch-Site nor Origin on a GET
// cannot be told from curl, and passes: every browser of the last years
// sends Sec-Fetch-Site.
func (s *server) sameSiteRun(c *http.CrossOriginProtection) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !carriesFile(r) {
				next.ServeHTTP(w, r)
				return
			}
			probe := *r // a shallow copy: only the method differs
			probe.Method = http.MethodPost
			if err := c.Check(&probe); err != nil {
				s.shell.Log.Warn("cross-site run refused", "method", r.Method, "path", page.InputExcerpt(r.URL.Path),
					"origin", page.InputExcerpt(r.Header.Get("Origin")), "sec_fetch_site", page.InputExcerpt(r.Header.Get("Sec-Fetch-Site")))
				s.shell.RenderError(w, r, &page.Error{Status: http.StatusForbidden, Key: "err.crosssite"})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// carriesFile reports whether a request's query names a handler file.
func carriesFile(r *http.Request) bool {
	q := r.URL.Query()
	for _, p := range runParams {
		if q.Has(p) {
			return true
		}
	}
	return false
}
