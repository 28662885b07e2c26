package costpage

import (
	"embed"

	"github.com/idempotency-lab/lab/web/page"
)

// messages are the cost page's words, one file per
// language (page.LoadMessages).
//
//go:embed messages/*.json
var messages embed.FS

// Catalog is the cost page's words.
func Catalog() page.Catalog { return page.MustMessages(messages) }
