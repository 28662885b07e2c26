package course

import (
	"embed"

	"github.com/idempotency-lab/lab/web/page"
)

// messages are the lessons pages' words, one file per
// language (page.LoadMessages).
//
//go:embed messages/*.json
var messages embed.FS

// Catalog holds the words of the lessons pages and of the site's
// main navigation.
func Catalog() page.Catalog { return page.MustMessages(messages) }
