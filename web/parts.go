package web

import (
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/web/checkpage"
	"github.com/idempotency-lab/lab/web/classroom"
	"github.com/idempotency-lab/lab/web/costpage"
	"github.com/idempotency-lab/lab/web/course"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/practicepage"
	"github.com/idempotency-lab/lab/web/tryapi"
)

// part is a folder under web/ (with its subfolders): one of the lab's parts,
// or a shared one below them all.
type part struct {
	dir string // web/NAME
	// words are its words, which the server joins into the shell's
	// catalogue (catalogParts); nil: it has none of its own (the
	// playground shows labview's, the shell's are page's own).
	words func() page.Catalog
	// mount adds its addresses to the server's router (routes.go); nil
	// for a shared folder, which has no pages of its own.
	mount func(s *server, m mux)
}

// mux is what a part mounts its pages on: the router, the same router for
// the GETs that run a visitor's handler file (csrf.go), and the server's
// throttles per client address (throttle.go).
type mux struct {
	r, runs chi.Router
	limit   limits
}

// parts is the one list of the lab's parts: routes mounts each one's
// pages, catalogParts joins each one's words, and the tests check that
// every folder under web/ is here or in shared, and that no part imports
// another.
var parts = []part{
	{dir: "web/playground", mount: (*server).playgroundRoutes},
	{dir: "web/checkpage", words: checkpage.Catalog, mount: (*server).checkRoutes},
	{dir: "web/costpage", words: costpage.Catalog, mount: (*server).costRoutes},
	{dir: "web/course", words: course.Catalog, mount: (*server).courseRoutes},
	{dir: "web/practicepage", words: practicepage.Catalog, mount: (*server).practiceRoutes},
	{dir: "web/classroom", words: classroom.Catalog, mount: (*server).classroomRoutes},
	{dir: "web/tryapi", words: tryapi.Catalog, mount: (*server).tryAPIRoutes},
}

// shared are the folders below every part: the shell (web/page) and the
// lab's model and views (web/labview), which the playground and the
// classroom both show. They import no part.
var shared = []part{
	{dir: "web/page"},
	{dir: "web/labview", words: labview.Catalog},
}

// catalogParts are every part's words. The server joins them with the
// shell's once, when it starts (page.NewCatalog), and only reads them
// afterwards; a key two parts define stops the start.
func catalogParts() []page.Catalog {
	var c []page.Catalog
	for _, p := range slices.Concat(shared, parts) {
		if p.words != nil {
			c = append(c, p.words())
		}
	}
	return c
}
