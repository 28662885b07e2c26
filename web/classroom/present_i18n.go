package classroom

import (
	"embed"

	"github.com/idempotency-lab/lab/web/page"
)

// messages are instructor mode's words, one file per
// language (page.LoadMessages).
//
//go:embed messages/*.json
var messages embed.FS

// Catalog holds the words of instructor mode: the presenter view,
// live rooms and polls.
func Catalog() page.Catalog { return page.MustMessages(messages) }
