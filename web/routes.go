package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/idempotency-lab/lab/web/course"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/tryapi"
)

// routes lists every address the server answers: its own here, then each
// part's (parts.go), each part's below in its own function. Others link to
// /lab and /healthz, so those stay stable.
func (s *server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.recoverPanics, s.logRequests, securityHeaders, middleware.GetHead, rememberLang,
		middleware.Compress(5, "text/html", "text/css", "text/javascript", "image/svg+xml", "text/plain"))
	// No address of the lab is 1 KiB long; no other site's page may make a
	// reader's browser post here (csrf.go). Throttles per client address
	// guard the posts a script could repeat (throttle.go).
	// No GET that runs a visitor's handler file (a code= address, a check
	// of a file, a grade) runs it for another site's page either (csrf.go).
	cop := s.crossOrigin()
	r.Use(s.boundPath, cop.Handler)
	runs := r.With(s.sameSiteRun(cop))
	m := mux{r: r, runs: runs, limit: newLimits(s.Now)}

	r.Get("/", http.RedirectHandler("/lab", http.StatusFound).ServeHTTP)
	r.Get("/healthz", healthz)
	r.Get("/static/*", s.shell.Handle(s.shell.Assets.Serve))
	for _, p := range parts {
		p.mount(s, m)
	}

	r.NotFound(s.shell.Handle(func(_ http.ResponseWriter, r *http.Request) error { return page.NotFound(r.URL.Path) }))
	r.MethodNotAllowed(s.shell.Handle(func(_ http.ResponseWriter, r *http.Request) error {
		return &page.Error{Status: http.StatusMethodNotAllowed, Key: "err.method", Args: []any{r.Method}}
	}))
	return r
}

// playgroundRoutes mounts the lab, the verdict grid and the challenges
// (web/playground).
func (s *server) playgroundRoutes(m mux) {
	m.runs.Get("/lab", s.shell.Handle(s.lab.Show))           // the lab: ?preset= | ?s= | ?script=, &handlers=, &step=
	m.r.Post("/lab/step", s.shell.Handle(s.lab.AddStep))     // append one step, then 303 to the new /lab address
	m.r.Post("/lab/code", s.shell.Handle(s.lab.Code))        // run or check a person's handler file, then 303
	m.r.Post("/lab/format", s.shell.Handle(s.lab.Format))    // go/format a handler file (the editor's Format), as JSON
	m.r.Post("/lab/undo", s.shell.Handle(s.lab.Undo))        // drop the last step, then 303
	m.r.Post("/lab/script", s.shell.Handle(s.lab.RunScript)) // replace the script with edited text, then 303

	// The verdict grid (playground/matrix.go): every preset on every handler, run
	// once by the engine and kept, each cell a link to that run in the lab.
	m.r.Get("/matrix", s.shell.Handle(s.lab.Matrix()))

	// Challenges (playground/challenges.go): goals reached in the lab (?challenge=ID),
	// judged by the engine; solutions are kept with practice's progress.
	m.r.Get("/challenges", s.shell.Handle(s.lab.Challenges))                  // the challenges and the reader's solves; ?saved=ID
	m.r.Get("/challenges/{id}", s.shell.Handle(s.lab.ChallengeGo))            // 303 to the lab with the challenge
	m.r.Post("/challenges/{id}/solve", s.shell.Handle(s.lab.SolveChallenge))  // s=PERMALINK: save a solution, 303 to the list
	m.r.Post("/challenges/{id}/solution", s.shell.Handle(s.lab.ShowSolution)) // the lab's state after a try: note the solution seen, 303 to the lab with solution=1
}

// checkRoutes mounts the checker (web/checkpage).
func (s *server) checkRoutes(m mux) {
	// The checker (web/checkpage): every handler's shortest failure, found by
	// searching schedules, each story a link to the lab.
	m.r.Get("/check", s.shell.Handle(s.check.Index))
	m.runs.Get("/check/code", s.shell.Handle(s.check.Code)) // a person's handler file, searched in the sandbox
	m.r.Get("/check/{handler}", s.shell.Handle(s.check.Handler))
}

// costRoutes mounts the cost lab (web/costpage).
func (s *server) costRoutes(m mux) {
	// The cost lab (web/costpage): the reference run's charts and, unless
	// lab serve --bench=false, a bench run here (one at a time, capped).
	m.r.Get("/cost", s.shell.Handle(s.cost.Index))         // ?run=1&handlers=&messages=&duplicates=&keys=&retention=
	m.r.Get("/cost/events", s.shell.Handle(s.cost.Events)) // the same bench, its progress as server-sent events
}

// courseRoutes mounts the lessons (web/course).
func (s *server) courseRoutes(m mux) {
	// The course: the table of contents (?q= searches titles and
	// headings), one lesson, and the stylesheet for its code.
	m.r.Get("/lessons", s.shell.Handle(s.course.Index))
	m.r.Get("/lessons/", http.RedirectHandler("/lessons", http.StatusMovedPermanently).ServeHTTP)
	m.r.Get(course.CodeCSSPath, s.shell.Handle(s.course.ServeCodeCSS))
	m.r.Get("/lessons/{slug}", s.shell.Handle(s.course.Lesson))
}

// practiceRoutes mounts the practice pages (web/practicepage).
func (s *server) practiceRoutes(m mux) {
	// Practice (practicepage/practice.go): questions and predictions graded on the spot,
	// progress saved per anonymous profile cookie. ?topic=SLUG lists a topic.
	m.r.Get("/practice", s.practice.Only(s.practice.Home))
	m.r.Get("/practice/interview", s.practice.Only(s.practice.Interview)) // ?seed=N; without it, a new run
	m.r.Get("/practice/review", s.practice.Only(s.practice.Review))
	m.r.Get("/practice/q/{id}", s.practice.Only(s.practice.Question))         // &topic= | &seed= | &review=1
	m.r.Post("/practice/q/{id}", s.practice.Only(s.practice.Answer))          // grade, record, 303 to the result
	m.runs.Get("/practice/q/{id}/result", s.practice.Only(s.practice.Result)) // the answer in the query, graded
	m.r.Get("/practice/q/{id}/compare", s.practice.Only(s.practice.Compare))  // an open answer beside the model
	m.r.Get("/practice/export", s.practice.Only(s.practice.Export))

	// Importing progress is throttled per client address (throttle.go).
	m.r.With(s.throttled(m.limit.imports)).Post("/practice/import", s.practice.Only(s.practice.Import)) // multipart "file", then 303 to /practice
}

// classroomRoutes mounts instructor mode (web/classroom).
func (s *server) classroomRoutes(m mux) {
	// Joining a room is throttled per address and per room, which only
	// the join knows once it has read the code (throttle.go).
	s.classroom.Admit = s.admitJoin(m.limit.joins)
	// Instructor mode (classroom/present.go, classroom/rooms.go): the presenter view of a preset
	// or a permalink (&handlers=, &step=, &show=source,timeline), and live
	// rooms that students follow over server-sent events and vote in.
	m.runs.Get("/present", s.shell.Handle(s.classroom.Present))                          // the scenarios to present, or ?s=PERMALINK
	m.runs.Get("/present/{preset}", s.shell.Handle(s.classroom.PresentPreset))           // an unknown preset: 404 listing the presets
	m.r.Get("/rooms", s.shell.Handle(s.classroom.RoomsIndex))                            // 303 to /present, the instructor's entry point (classroom/rooms_index.go)
	m.r.Get("/join", s.shell.Handle(s.classroom.Join))                                   // the form to type a code; ?code= goes to the room
	m.r.Post("/join", s.classroom.HandleRoom(s.classroom.JoinPost))                      // code=: issue the reader's identity in the room (throttled, see Admit), 303 to it
	m.r.Get("/join/{code}", s.shell.Handle(s.classroom.JoinPath))                        // the same, as a short address
	m.r.Get("/rooms/{code}", s.classroom.HandleRoom(s.classroom.RoomStudent))            // a student's page, following the room
	m.r.Get("/rooms/{code}/events", s.classroom.HandleRoom(s.classroom.RoomEvents))      // the room's state as server-sent events
	m.r.Get("/rooms/{code}/present", s.classroom.HandleRoom(s.classroom.RoomPresent))    // the instructor's page (secret cookie)
	m.r.Post("/rooms/{code}/step", s.classroom.HandleRoom(s.classroom.RoomStep))         // instructor: step=N [handlers=a,b], 303
	m.r.Post("/rooms/{code}/verdicts", s.classroom.HandleRoom(s.classroom.RoomVerdicts)) // instructor: hide=true|false, the room's V, 303
	m.r.Post("/rooms/{code}/poll", s.classroom.HandleRoom(s.classroom.RoomPoll))         // instructor: ask about the next step, 303
	// instructor: every poll's answers as a CSV file (classroom/rooms_polls.go)
	m.r.Get("/rooms/{code}/results.csv", s.classroom.HandleRoom(s.classroom.RoomResults))

	// Opening a room and voting are throttled per client address (throttle.go).
	m.r.With(s.throttled(m.limit.rooms)).Post("/rooms", s.classroom.HandleRoom(s.classroom.CreateRoom))           // open a room, secret cookie, 303 to its present page
	m.r.With(s.throttled(m.limit.votes)).Post("/rooms/{code}/vote", s.classroom.HandleRoom(s.classroom.RoomVote)) // student: poll=ID balance=200.00, 303
}

// tryAPIRoutes mounts the live API endpoint and its pages (web/tryapi).
func (s *server) tryAPIRoutes(m mux) {
	// The API side, live (web/tryapi): a payments endpoint people curl,
	// served by api-idempotency-key in a ledger of their naming, and the
	// pages that explain it and show a ledger's tables as they change.
	// Everything under /api/v1 answers application/problem+json, its 404,
	// 405 and 429 too; payments are throttled per client address.
	m.r.Route("/api/v1", func(r chi.Router) {
		r.NotFound(tryapi.NotFound)
		r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
			s.tryAPI.Record(r, http.StatusMethodNotAllowed) // a payments address's 405 is in its ledger's log too
			tryapi.MethodNotAllowed(w, r)
		})
		r.With(s.throttledAPI(m.limit.payments)).Post("/ledgers/{ledger}/payments", s.tryAPI.Pay) // Idempotency-Key, {"account","amount"}: 201 | replay | 4xx
		r.Get("/ledgers/{ledger}/payments", s.tryAPI.List)                                        // the ledger's tables as JSON
		r.HandleFunc("/sandboxes/{ledger}/payments", tryapi.OldPayments)                          // the address before ledgers were called so: 308 to the new one
	})
	m.r.Get("/try-api", s.shell.Handle(s.tryAPI.Index))                // what it is, a form to pick a ledger (?ledger= goes to it), the cheat-sheet
	m.r.Get("/try-api/{ledger}", s.shell.Handle(s.tryAPI.LedgerPage))  // a ledger's tables, polled, and its cheat-sheet
	m.r.Get("/try-api/{ledger}/state", s.shell.Handle(s.tryAPI.State)) // the tables alone, for the poll
}

// healthz answers 200 once the server is built: NewServer has parsed every
// preset and highlighted every handler, so there is nothing left to wait for.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("ok\n"))
}
