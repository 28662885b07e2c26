package classroom

import (
	"net/http"

	"github.com/idempotency-lab/lab/web/page"
)

// RoomsIndex answers GET /rooms. Rooms are opened from the presenter's
// list of scenarios, and an instructor's secret cookie is scoped to its own
// room's path, so there is no list of "my rooms" to show here: the address
// sends the reader to /present, the instructor's entry point.
func (s *Classroom) RoomsIndex(w http.ResponseWriter, r *http.Request) error {
	target := "/present"
	if q := r.URL.Query().Get("lang"); q != "" {
		if l, ok := page.ParseLang(q); ok {
			target += "?lang=" + string(l)
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}
