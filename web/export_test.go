package web

// What the server's external tests (package web_test, over web/webtest)
// reach inside it, for the tests only: the server with its parts, the
// catalogue, the middleware, and the throttle with its limits.

import (
	"net/http"
	"time"

	"github.com/idempotency-lab/lab/web/course"
	"github.com/idempotency-lab/lab/web/page"
	"github.com/idempotency-lab/lab/web/playground"
	"github.com/idempotency-lab/lab/web/practicepage"
)

// Server is the server with its parts open to the tests.
type Server = server

// InternalServer builds the server as NewServer does, without closing it
// into its routes.
var InternalServer = newServer

// NewCatalog is the server's catalogue: the shell's words and every part's.
var NewCatalog = newCatalog

// ServerOver is a server of a shell alone, no part: for the middleware's
// tests.
func ServerOver(shell *page.Shell) *server { return &server{shell: shell} }

func (s *server) Shell() *page.Shell                           { return s.shell }
func (s *server) Routes() http.Handler                         { return s.routes() }
func (s *server) Lab() *playground.Playground                  { return s.lab }
func (s *server) Course() *course.Course                       { return s.course }
func (s *server) Practice() *practicepage.Practice             { return s.practice }
func (s *server) RecoverPanics(next http.Handler) http.Handler { return s.recoverPanics(next) }
func (s *server) LogRequests(next http.Handler) http.Handler   { return s.logRequests(next) }

// NewThrottle is a throttle of its own, on the clock now.
var NewThrottle = newThrottle

func (t *throttle) Allow(key string) (bool, time.Duration) { return t.allow(key) }
func (t *throttle) Size() int                              { return t.size() }

// ClientKey is the address a request is throttled by.
var ClientKey = clientKey

// The throttles' limits.
const (
	RoomsPerMinute   = roomsPerMinute
	RoomsBurst       = roomsBurst
	ImportsPerMinute = importsPerMinute
	ImportsBurst     = importsBurst
	VotesBurst       = votesBurst
	JoinsPerMinute   = joinsPerMinute
	JoinsBurst       = joinsBurst
	PaymentsBurst    = paymentsBurst
)
