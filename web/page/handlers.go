package page

import "github.com/idempotency-lab/lab/handlers"

// HandlerSummary is a handler's one-line summary in the page's language:
// the catalogue's translation (key "h." + name) where there is one, else
// the handler's own English summary.
func HandlerSummary(t Text, h handlers.Info) string {
	if t.Has("h." + h.Name) {
		return t.S("h." + h.Name)
	}
	return h.Summary
}
