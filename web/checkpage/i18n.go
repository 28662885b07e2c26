package checkpage

import (
	"embed"

	"github.com/idempotency-lab/lab/web/page"
)

// messages are the checker's words, one file per
// language (page.LoadMessages).
//
//go:embed messages/*.json
var messages embed.FS

// Catalog is the checker's words.
func Catalog() page.Catalog { return page.MustMessages(messages) }
