// Package classroom is instructor mode: the presenter view of a preset or
// a permalink, and live rooms that students join and follow over
// server-sent events and vote in (their state is web/classroom/room).
package classroom

import (
	"net/http"
	"time"

	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// Classroom is instructor mode: the presenter view and live rooms.
type Classroom struct {
	Shell     *page.Shell       // the catalogue, static files, log and page cache
	Replayer  *labview.Replayer // reads and replays the lab's states the rooms show
	Hub       *room.Hub
	Heartbeat time.Duration   // between comments on a quiet event stream; <= 0: none
	Stop      <-chan struct{} // closed at shutdown: event streams end
	IDKey     []byte          // signs students' ids; random per process
	// Admit takes a token for a join, the request that issues a student's
	// identity in room code, and returns the error to answer instead (a
	// 429 page) when the reader's address has had its share in that room
	// lately; nil admits every join. The server sets it (web/throttle.go).
	Admit func(r *http.Request, code string) error
}

// New builds instructor mode on the lab. A nil hub opens rooms in a hub
// with the default limits; a zero heartbeat means the default.
func New(lv *labview.Replayer, hub *room.Hub, heartbeat time.Duration, stop <-chan struct{}) *Classroom {
	if hub == nil {
		hub = room.NewHub(room.Config{})
	}
	if heartbeat == 0 {
		heartbeat = defaultHeartbeat
	}
	key := hub.StudentKey() // rooms in Redis: every server signs with the same key
	if key == nil {
		key = newIDKey()
	}
	return &Classroom{Shell: lv.Shell, Replayer: lv, Hub: hub, Heartbeat: heartbeat, Stop: stop, IDKey: key}
}
