// Package playground is the playground's pages: /lab and the forms that add,
// undo and replace its steps, the verdict grid at /matrix, and the
// challenges at /challenges, all on the lab's views (web/labview).
package playground

import (
	"time"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// Playground is the playground: the lab page, the verdict grid and the
// challenges.
type Playground struct {
	Shell       *page.Shell       // the catalogue, static files, log and page cache
	Replayer    *labview.Replayer // reads and replays the lab's states
	Progress    *practice.Store   // nil: challenges are judged but not saved
	Now         func() time.Time  // dates saved solutions
	LessonTitle func(lang, slug string) string
}

// Matrix is the handler of /matrix: the verdict grid, computed once.
func (s *Playground) Matrix() page.HandlerFunc { return s.matrixHandlerFor(&verdictGrid{}) }
