package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// routes lists every address the server answers. Others link to /lab and
// /healthz, so those stay stable.
func (s *server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.recoverPanics, s.logRequests, securityHeaders, middleware.GetHead, rememberLang,
		middleware.Compress(5, "text/html", "text/css", "text/javascript", "image/svg+xml", "text/plain"))

	r.Get("/", http.RedirectHandler("/lab", http.StatusFound).ServeHTTP)
	r.Get("/healthz", healthz)
	r.Get("/static/*", s.handle(s.assets.serve))

	r.Get("/lab", s.handle(s.lab))               // the lab: ?preset= | ?s= | ?script=, &handlers=, &step=
	r.Post("/lab/step", s.handle(s.addStep))     // append one step, then 303 to the new /lab address
	r.Post("/lab/undo", s.handle(s.undo))        // drop the last step, then 303
	r.Post("/lab/script", s.handle(s.runScript)) // replace the script with edited text, then 303

	r.NotFound(s.handle(func(_ http.ResponseWriter, r *http.Request) error { return notFound(r.URL.Path) }))
	r.MethodNotAllowed(s.handle(func(_ http.ResponseWriter, r *http.Request) error {
		return &httpError{status: http.StatusMethodNotAllowed, key: "err.method", args: []any{r.Method}}
	}))
	return r
}

// healthz answers 200 once the server is built: NewServer has parsed every
// preset and highlighted every handler, so there is nothing left to wait for.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("ok\n"))
}
